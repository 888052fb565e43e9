import type { Ecosystem } from "../../db/types.ts";

/**
 * The packages the generated dependency data pins (real names, with the version each history
 * starts from) and the kinds of weakness its invented advisories describe.
 */

export const PACKAGES: Array<[Ecosystem, string, string]> = [
  ["NPM", "lodash", "4.17.10"],
  ["NPM", "express", "4.16.0"],
  ["NPM", "axios", "0.21.0"],
  ["NPM", "minimist", "1.2.0"],
  ["NPM", "jsonwebtoken", "8.5.0"],
  ["NPM", "node-fetch", "2.6.0"],
  ["NPM", "ws", "7.4.0"],
  ["NPM", "semver", "7.3.0"],
  ["NPM", "handlebars", "4.7.0"],
  ["NPM", "qs", "6.9.0"],
  ["NPM", "tar", "6.1.0"],
  ["NPM", "follow-redirects", "1.14.0"],
  ["NPM", "undici", "5.20.0"],
  ["PYPI", "requests", "2.25.0"],
  ["PYPI", "django", "3.2.0"],
  ["PYPI", "flask", "2.0.0"],
  ["PYPI", "pyyaml", "5.3.0"],
  ["PYPI", "jinja2", "3.0.0"],
  ["PYPI", "urllib3", "1.26.0"],
  ["PYPI", "pillow", "9.0.0"],
  ["PYPI", "cryptography", "38.0.0"],
  ["PYPI", "sqlalchemy", "1.4.0"],
  ["PYPI", "werkzeug", "2.2.0"],
  ["PYPI", "aiohttp", "3.8.0"],
  ["PYPI", "paramiko", "2.10.0"],
  ["MAVEN", "org.apache.logging.log4j:log4j-core", "2.14.0"],
  ["MAVEN", "com.fasterxml.jackson.core:jackson-databind", "2.12.0"],
  ["MAVEN", "org.springframework:spring-web", "5.3.0"],
  ["MAVEN", "org.yaml:snakeyaml", "1.30.0"],
  ["MAVEN", "org.apache.commons:commons-text", "1.8.0"],
  ["MAVEN", "io.netty:netty-codec-http", "4.1.60"],
  ["MAVEN", "com.h2database:h2", "1.4.200"],
  ["MAVEN", "org.postgresql:postgresql", "42.2.0"],
  ["GO", "golang.org/x/net", "v0.7.0"],
  ["GO", "golang.org/x/crypto", "v0.1.0"],
  ["GO", "github.com/gin-gonic/gin", "v1.7.0"],
  ["GO", "google.golang.org/grpc", "v1.50.0"],
  ["GO", "github.com/golang-jwt/jwt/v4", "v4.4.0"],
  ["GO", "gopkg.in/yaml.v3", "v3.0.0"],
  ["GO", "github.com/gorilla/websocket", "v1.4.0"],
  ["RUBYGEMS", "rails", "6.1.0"],
  ["RUBYGEMS", "nokogiri", "1.13.0"],
  ["RUBYGEMS", "rack", "2.2.0"],
  ["RUBYGEMS", "devise", "4.8.0"],
  ["RUBYGEMS", "puma", "5.6.0"],
  ["NUGET", "Newtonsoft.Json", "12.0.1"],
  ["NUGET", "System.Text.Encodings.Web", "4.7.0"],
  ["NUGET", "Microsoft.Data.SqlClient", "2.1.0"],
  ["NUGET", "log4net", "2.0.10"],
  ["PACKAGIST", "laravel/framework", "8.0.0"],
  ["PACKAGIST", "guzzlehttp/guzzle", "7.0.0"],
  ["PACKAGIST", "symfony/http-kernel", "5.4.0"],
  ["PACKAGIST", "twig/twig", "3.3.0"],
  ["CRATES_IO", "tokio", "1.20.0"],
  ["CRATES_IO", "hyper", "0.14.10"],
  ["CRATES_IO", "openssl", "0.10.40"],
  ["CRATES_IO", "regex", "1.5.0"],
  ["CRATES_IO", "smallvec", "1.6.0"],
];

export const PURL_TYPE: Record<Ecosystem, string> = {
  NPM: "npm",
  PYPI: "pypi",
  MAVEN: "maven",
  GO: "golang",
  RUBYGEMS: "gem",
  NUGET: "nuget",
  PACKAGIST: "composer",
  CRATES_IO: "cargo",
};

/** Kinds of weakness the advisories describe, with a typical CVSS v3.1 vector. */
export const KINDS: Array<{
  title: string;
  sentence: string;
  cwe: number;
  vector: string;
  memory?: boolean;
}> = [
  {
    title: "Regular expression denial of service",
    sentence:
      "use a pattern that backtracks exponentially on crafted input, so one request can pin a CPU core",
    cwe: 1333,
    vector: "AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H",
  },
  {
    title: "Prototype pollution",
    sentence:
      "copy attacker-controlled keys such as `__proto__` into objects, changing the prototype of every object",
    cwe: 1321,
    vector: "AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:L",
  },
  {
    title: "Cross-site scripting",
    sentence: "render user-supplied markup without escaping it",
    cwe: 79,
    vector: "AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N",
  },
  {
    title: "Remote code execution through unsafe deserialisation",
    sentence: "instantiate arbitrary types from untrusted input",
    cwe: 502,
    vector: "AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
  },
  {
    title: "Path traversal",
    sentence:
      "accept `..` segments in archive entries or request paths and read files outside the intended directory",
    cwe: 22,
    vector: "AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
  },
  {
    title: "Server-side request forgery",
    sentence: "follow redirects to internal addresses that the caller could not reach directly",
    cwe: 918,
    vector: "AV:N/AC:L/PR:N/UI:N/S:C/C:L/I:L/A:N",
  },
  {
    title: "Uncontrolled resource consumption",
    sentence: "allocate memory in proportion to an attacker-chosen header or frame size",
    cwe: 400,
    vector: "AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H",
  },
  {
    title: "Improper certificate validation",
    sentence: "skip host name verification in some TLS configurations",
    cwe: 295,
    vector: "AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N",
  },
  {
    title: "Sensitive information exposure",
    sentence: "forward authorisation headers to a different host after a redirect",
    cwe: 200,
    vector: "AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N",
  },
  {
    title: "SQL injection",
    sentence: "build query fragments from values that are not escaped",
    cwe: 89,
    vector: "AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H",
  },
  {
    title: "Signature verification bypass",
    sentence: "accept tokens whose algorithm field names no signature at all",
    cwe: 347,
    vector: "AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N",
  },
  {
    title: "HTTP request smuggling",
    sentence: "parse conflicting length headers differently from common proxies",
    cwe: 444,
    vector: "AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N",
  },
  {
    title: "Out-of-bounds write",
    sentence: "write past the end of a buffer when growing it under specific sizes",
    cwe: 787,
    vector: "AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H",
    memory: true,
  },
  {
    title: "Use after free",
    sentence: "keep a reference to memory that a concurrent drop has released",
    cwe: 416,
    vector: "AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H",
    memory: true,
  },
];
