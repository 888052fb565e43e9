import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { listToolFixtures, readToolFixture, readToolSummary } from "../fixtures.ts";
import {
  defaultTarget,
  licenseRefOf,
  packageOfComponent,
  parsePurl,
  readSbom,
  type SbomDocument,
  SbomFormatError,
  sbomFormatName,
  targetOfLocation,
} from "./index.ts";
import { joinLicenses } from "./license.ts";

/**
 * The SBOM readers against real tools' documents (npm's own `npm sbom`, CycloneDX's
 * cyclonedx-npm and cdxgen; scripts/make-fixtures.sh), compared with what the tools say they wrote, plus the
 * edge cases of each format: streamed in small chunks, cut short, of an unsupported version.
 */

/** The text as a stream of `size`-byte chunks. */
async function* chunks(text: string, size = 7): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

function read(text: string, size?: number, expect?: "cyclonedx" | "spdx"): Promise<SbomDocument> {
  return readSbom(chunks(text, size), { expect });
}

/** name@version → direct, licence, for comparing documents. */
function summary(document: SbomDocument): Record<string, [boolean, string | null]> {
  return Object.fromEntries(
    document.components.map((c) => [
      `${c.name}@${c.version}`,
      [c.direct, c.license] as [boolean, string | null],
    ]),
  );
}

describe("SBOM readers on real tools' documents", () => {
  test("npm's CycloneDX 1.5 JSON: the components npm counted, the root left out, dev dependencies direct", async () => {
    const { figures } = readToolSummary("sbom", "npm", "cyclonedx.json");
    const cyclonedx = figures.cyclonedx as { specVersion: string; components: number };
    const document = await read(readToolFixture("sbom", "npm", "cyclonedx.json"));
    assert.equal(sbomFormatName(document), `CycloneDX ${cyclonedx.specVersion} (JSON)`);
    assert.equal(document.components.length, cyclonedx.components);
    assert.deepEqual(document.root, {
      name: "npm-sbom",
      version: "2.3.0",
      purl: "pkg:npm/status-page@2.3.0",
    });
    assert.equal(document.hasGraph, true);
    // npm lists its devDependency ms among the root's dependencies too.
    assert.deepEqual(summary(document), {
      "debug@4.3.7": [true, "MIT"],
      "ms@2.1.3": [true, "MIT"],
      "picocolors@1.1.1": [true, "ISC"],
    });
  });

  test("npm's SPDX 2.3 JSON: the packages npm counted less the described one, from DEPENDENCY_OF relationships", async () => {
    const { figures } = readToolSummary("sbom", "npm", "spdx.json");
    const spdx = figures.spdx as { spdxVersion: string; packages: number };
    const document = await read(readToolFixture("sbom", "npm", "spdx.json"), 64);
    assert.equal(sbomFormatName(document), `SPDX ${spdx.spdxVersion.slice("SPDX-".length)} (JSON)`);
    assert.equal(document.components.length, spdx.packages - 1);
    assert.equal(document.root?.purl, "pkg:npm/status-page@2.3.0");
    assert.deepEqual(summary(document), {
      "debug@4.3.7": [true, "MIT"],
      "ms@2.1.3": [true, "MIT"],
      "picocolors@1.1.1": [true, "ISC"],
    });
  });

  test("cdxgen's CycloneDX 1.6 JSON: the root's three dependencies direct, each found in the lockfile it names", async () => {
    const { figures } = readToolSummary("sbom", "cdxgen", "bom.json");
    const expected = figures as {
      specVersion: string;
      components: number;
      direct: number;
      purls: string[];
      root: string;
      srcFiles: string[];
    };
    const document = await read(readToolFixture("sbom", "cdxgen", "bom.json"), 11);
    assert.equal(sbomFormatName(document), `CycloneDX ${expected.specVersion} (JSON)`);
    assert.equal(document.components.length, expected.components);
    assert.equal(document.components.filter((c) => c.direct).length, expected.direct);
    assert.deepEqual(document.components.map((c) => c.purl).sort(), expected.purls);
    assert.equal(document.root?.purl, expected.root);
    assert.deepEqual([...new Set(document.components.flatMap((c) => c.locations))].sort(), expected.srcFiles);
    // cdxgen keeps ms among the root's dependencies: the root lists it, as a devDependency.
    assert.deepEqual(summary(document), {
      "debug@4.3.7": [true, "MIT"],
      "ms@2.1.3": [true, "MIT"],
      "picocolors@1.1.1": [true, "ISC"],
    });
  });

  test("cyclonedx-npm's CycloneDX 1.6 JSON and XML read alike: two direct dependencies, ms transitive", async () => {
    const { figures } = readToolSummary("sbom", "cyclonedx-npm", "bom.json");
    const expected = figures as {
      specVersion: string;
      components: number;
      direct: number;
      purls: string[];
      root: string;
    };
    const fixtures = listToolFixtures("sbom").filter((f) => f.tool === "cyclonedx-npm");
    assert.deepEqual(
      fixtures.map((f) => f.file),
      ["cyclonedx-npm/bom.json", "cyclonedx-npm/bom.xml"],
    );
    for (const [name, encoding] of [
      ["bom.json", "JSON"],
      ["bom.xml", "XML"],
    ] as const) {
      const document = await read(readToolFixture("sbom", "cyclonedx-npm", name), 13);
      assert.equal(sbomFormatName(document), `CycloneDX ${expected.specVersion} (${encoding})`, name);
      assert.equal(document.components.length, expected.components, name);
      assert.equal(document.components.filter((c) => c.direct).length, expected.direct, name);
      assert.deepEqual(document.components.map((c) => c.purl).sort(), expected.purls, name);
      assert.equal(document.root?.purl, expected.root, name);
      assert.deepEqual(
        summary(document),
        {
          "debug@4.3.7": [true, "MIT"],
          "ms@2.1.3": [false, "MIT"],
          "picocolors@1.1.1": [true, "ISC"],
        },
        name,
      );
    }
  });

  test("a document read in one chunk or byte by byte gives the same components", async () => {
    const text = readToolFixture("sbom", "cyclonedx-npm", "bom.xml");
    assert.deepEqual(await read(text, 1), await read(text, text.length));
    const json = readToolFixture("sbom", "npm", "spdx.json");
    assert.deepEqual(await read(json, 1), await read(json, json.length));
  });
});

describe("the project's own packages and several projects (an npm workspace with a file: link)", () => {
  const figures = readToolSummary("sbom", "workspaces", "npm-cyclonedx.json").figures as {
    npm: { links: string[]; thirdParty: string[]; direct: string[]; changelogDirect: string[] };
  };
  const nameOf = (c: SbomDocument["components"][number]) =>
    `${decodeURIComponent(c.purl!.slice("pkg:npm/".length).split("@").slice(0, -1).join("@"))}@${c.version}`;
  const own = (document: SbomDocument) =>
    document.components
      .filter((c) => c.own)
      .map(nameOf)
      .sort();
  const direct = (document: SbomDocument) =>
    document.components
      .filter((c) => !c.own && c.direct)
      .map(nameOf)
      .sort();

  for (const file of [
    "npm-cyclonedx.json",
    "npm-spdx.json",
    "cyclonedx-npm.json",
    "cyclonedx-npm.xml",
    "cdxgen.json",
  ]) {
    test(`${file}: npm's links are the project's own packages, what they and the root depend on is direct`, async () => {
      const document = await read(readToolFixture("sbom", "workspaces", file), 13);
      assert.deepEqual(own(document), figures.npm.links);
      assert.deepEqual(direct(document), figures.npm.direct);
      assert.deepEqual(
        document.components
          .filter((c) => !c.own)
          .map(nameOf)
          .sort(),
        figures.npm.thirdParty,
      );
    });
  }

  test("cdxgen recursing: the project nested in the root is a root too, and a package keeps every lockfile it names", async () => {
    const document = await read(readToolFixture("sbom", "workspaces", "cdxgen-recurse.json"), 17);
    assert.equal(document.root?.purl, "pkg:npm/storefront@1.0.0");
    assert.ok(!document.components.some((c) => c.purl === "pkg:npm/changelog@0.4.0"));
    assert.deepEqual(
      direct(document),
      [...new Set([...figures.npm.direct, ...figures.npm.changelogDirect])].sort(),
    );
    const ms = document.components.find((c) => c.purl === "pkg:npm/ms@2.1.3")!;
    assert.deepEqual(ms.locations, ["package-lock.json", "tools/changelog/package-lock.json"]);
  });

  test("a project nested in the root of an XML document is a root too", async () => {
    const xml = readToolFixture("sbom", "workspaces", "cyclonedx-npm.xml")
      .replace(
        "      </properties>\n    </component>\n    <properties>",
        '      </properties>\n      <components>\n        <component type="application" bom-ref="changelog@0.4.0">\n          <name>changelog</name>\n          <version>0.4.0</version>\n          <purl>pkg:npm/changelog@0.4.0</purl>\n        </component>\n      </components>\n    </component>\n    <properties>',
      )
      .replace(
        "  </dependencies>",
        '    <dependency ref="changelog@0.4.0">\n      <dependency ref="storefront@1.0.0|ms@2.1.3"/>\n    </dependency>\n  </dependencies>',
      );
    assert.ok(
      xml.includes('bom-ref="changelog@0.4.0"') && xml.includes('<dependency ref="changelog@0.4.0">'),
    );
    const document = await read(xml, 29);
    assert.equal(document.root?.purl, "pkg:npm/storefront@1.0.0");
    assert.ok(!document.components.some((c) => c.name === "changelog"));
    assert.deepEqual(direct(document), [...figures.npm.direct, "ms@2.1.3"].sort());
  });

  test("what npm leaves out says nothing when no package has it, or when another tool wrote the document", async () => {
    // cyclonedx-npm on a lockfile written with omit-lockfile-registry-resolved: no package has a
    // distribution reference, the links no more than the others.
    const bom = JSON.parse(readToolFixture("sbom", "workspaces", "cyclonedx-npm.json")) as {
      metadata: { tools: unknown };
      components: Array<{ externalReferences?: unknown[] }>;
    };
    const stripped = structuredClone(bom);
    for (const component of stripped.components) component.externalReferences = [];
    assert.deepEqual(own(await read(JSON.stringify(stripped))), []);
    // The same document, said to be written by another tool.
    const other = structuredClone(bom);
    other.metadata.tools = { components: [{ type: "application", name: "syft", version: "1.0.0" }] };
    assert.deepEqual(own(await read(JSON.stringify(other))), []);
    assert.deepEqual(own(await read(JSON.stringify(bom))), figures.npm.links);
  });
});

describe("SBOM readers refuse what they cannot read, naming the problem", () => {
  const cyclonedx = () => readToolFixture("sbom", "npm", "cyclonedx.json");
  const xml = () => readToolFixture("sbom", "cyclonedx-npm", "bom.xml");

  async function refusal(text: string, expect?: "cyclonedx" | "spdx"): Promise<string> {
    try {
      await read(text, 101, expect);
    } catch (error) {
      assert.ok(error instanceof SbomFormatError, String(error));
      return error.message;
    }
    assert.fail("the document was read");
  }

  test("documents cut short", async () => {
    assert.equal(
      await refusal(cyclonedx().slice(0, 900)),
      "the CycloneDX SBOM: the document ends at byte 900 before its value is complete (is the file cut short?)",
    );
    assert.match(
      await refusal(xml().slice(0, 3000)),
      /^the CycloneDX SBOM ends at line \d+ before <bom> is closed/,
    );
    assert.match(
      await refusal(readToolFixture("sbom", "npm", "spdx.json").slice(0, 2000)),
      /^the SPDX SBOM: the document ends at byte 2000/,
    );
  });

  test("versions outside CycloneDX 1.4-1.6 and SPDX 2.2-2.3; 1.4 is read", async () => {
    assert.equal(
      await refusal(cyclonedx().replace('"specVersion": "1.5"', '"specVersion": "1.3"')),
      "CycloneDX 1.3 is not supported: upload CycloneDX 1.4, 1.5, 1.6 (most tools take a --spec-version option)",
    );
    assert.equal(
      await refusal(xml().replace("schema/bom/1.6", "schema/bom/1.7")),
      "CycloneDX 1.7 is not supported: upload CycloneDX 1.4, 1.5, 1.6 (most tools take a --spec-version option)",
    );
    const older = await read(cyclonedx().replace('"specVersion": "1.5"', '"specVersion": "1.4"'));
    assert.equal(older.specVersion, "1.4");
  });

  test("invalid JSON and XML name the place; another kind of document is named", async () => {
    assert.match(
      await refusal(cyclonedx().replace('"components"', '"components" #')),
      /^the CycloneDX SBOM: invalid JSON at byte \d+$/,
    );
    assert.match(
      await refusal(xml().replace("<components>", "<components><<")),
      /^the CycloneDX SBOM is not well-formed XML at line \d+: /,
    );
    assert.equal(
      await refusal(readToolFixture("sarif", "eslint", "eslint.sarif")),
      "the report is not a CycloneDX or SPDX SBOM (it looks like a SARIF log)",
    );
    assert.equal(await refusal(""), "the SBOM is empty");
    assert.equal(
      await refusal(cyclonedx(), "spdx"),
      "the upload's key says spdx, but the report is a CycloneDX SBOM (JSON)",
    );
  });
});

describe("SPDX tag-value", () => {
  // npm writes no tag-value; this is npm's SPDX document above in the spec's tag-value form.
  const TAG_VALUE = `SPDXVersion: SPDX-2.3
DataLicense: CC0-1.0
SPDXID: SPDXRef-DOCUMENT
DocumentName: status-page@2.3.0
DocumentNamespace: http://spdx.org/spdxdocs/status-page-2.3.0
Creator: Tool: npm/cli-11.19.1
Created: 2026-11-23T21:57:06Z
DocumentComment: <text>A comment
over two lines: PackageName: not a package</text>

PackageName: status-page
SPDXID: SPDXRef-Package-status-page-2.3.0
PackageVersion: 2.3.0
PackageDownloadLocation: NOASSERTION
PackageLicenseDeclared: MIT
ExternalRef: PACKAGE-MANAGER purl pkg:npm/status-page@2.3.0

PackageName: debug
SPDXID: SPDXRef-Package-debug-4.3.7
PackageVersion: 4.3.7
PackageDownloadLocation: NOASSERTION
PackageLicenseConcluded: NOASSERTION
PackageLicenseDeclared: MIT
ExternalRef: PACKAGE-MANAGER purl pkg:npm/debug@4.3.7

PackageName: ms
SPDXID: SPDXRef-Package-ms-2.1.3
PackageVersion: 2.1.3
PackageDownloadLocation: NOASSERTION
PackageLicenseConcluded: MIT OR Apache-2.0
ExternalRef: PACKAGE-MANAGER purl pkg:npm/ms@2.1.3

Relationship: SPDXRef-DOCUMENT DESCRIBES SPDXRef-Package-status-page-2.3.0
Relationship: SPDXRef-Package-status-page-2.3.0 DEPENDS_ON SPDXRef-Package-debug-4.3.7
Relationship: SPDXRef-Package-ms-2.1.3 DEPENDENCY_OF SPDXRef-Package-debug-4.3.7
Relationship: SPDXRef-Package-minimist-1.2.5 PREREQUISITE_FOR SPDXRef-Package-status-page-2.3.0

PackageName: minimist
SPDXID: SPDXRef-Package-minimist-1.2.5
PackageVersion: 1.2.5
PackageDownloadLocation: NOASSERTION
PackageLicenseDeclared: MIT
ExternalRef: PACKAGE-MANAGER purl pkg:npm/minimist@1.2.5
`;

  test("packages, licences (concluded before declared) and the graph, in any chunking", async () => {
    for (const size of [1, 5, TAG_VALUE.length]) {
      const document = await read(TAG_VALUE, size);
      assert.equal(sbomFormatName(document), "SPDX 2.3 (tag-value)");
      assert.equal(document.root?.purl, "pkg:npm/status-page@2.3.0");
      // minimist is a peer dependency, which npm writes as PREREQUISITE_FOR its dependent.
      assert.deepEqual(summary(document), {
        "debug@4.3.7": [true, "MIT"],
        "minimist@1.2.5": [true, "MIT"],
        "ms@2.1.3": [false, "MIT OR Apache-2.0"],
      });
    }
  });

  test("a text value left open is a document cut short", async () => {
    await assert.rejects(read(TAG_VALUE.replace("PackageName: not a package</text>", "")), {
      message: "the SPDX SBOM ends inside a <text> value (is the file cut short?)",
    });
  });
});

describe("package URLs, licences and targets", () => {
  test("purls name packages as OSV does in each ecosystem; other types have no ecosystem", () => {
    const cases: Array<[string, string | null, string, string | null, string]> = [
      ["pkg:npm/%40babel/core@7.24.0", "NPM", "@babel/core", "7.24.0", "pkg:npm/%40babel/core"],
      [
        "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.0?type=jar",
        "MAVEN",
        "org.apache.logging.log4j:log4j-core",
        "2.14.0",
        "pkg:maven/org.apache.logging.log4j/log4j-core",
      ],
      [
        "pkg:golang/github.com/gin-gonic/gin@v1.9.1",
        "GO",
        "github.com/gin-gonic/gin",
        "v1.9.1",
        "pkg:golang/github.com/gin-gonic/gin",
      ],
      ["pkg:pypi/Django@4.2.0", "PYPI", "django", "4.2.0", "pkg:pypi/django"],
      [
        "pkg:composer/laravel/framework@10.0.0",
        "PACKAGIST",
        "laravel/framework",
        "10.0.0",
        "pkg:composer/laravel/framework",
      ],
      ["pkg:cargo/serde@1.0.200", "CRATES_IO", "serde", "1.0.200", "pkg:cargo/serde"],
      ["pkg:gem/rails@7.1.0", "RUBYGEMS", "rails", "7.1.0", "pkg:gem/rails"],
      ["pkg:nuget/Newtonsoft.Json@13.0.1", "NUGET", "Newtonsoft.Json", "13.0.1", "pkg:nuget/Newtonsoft.Json"],
      ["pkg:deb/debian/curl@7.88.1", null, "debian/curl", "7.88.1", "pkg:deb/debian/curl"],
    ];
    for (const [purl, ecosystem, name, version, packagePurl] of cases) {
      const parsed = parsePurl(purl);
      assert.deepEqual(
        parsed && [parsed.ecosystem, parsed.name, parsed.version, parsed.packagePurl],
        [ecosystem, name, version, packagePurl],
        purl,
      );
    }
    assert.equal(parsePurl("npm/left-pad@1.0.0"), null);
  });

  test("a component without purl, of another type or without version is not a package version", () => {
    const base = {
      ref: null,
      name: "x",
      version: null,
      license: null,
      locations: [],
      linked: false,
      downloaded: null,
      direct: true,
      own: false,
    };
    assert.deepEqual(packageOfComponent({ ...base, purl: null }), { skip: "NO_PURL" });
    assert.deepEqual(packageOfComponent({ ...base, purl: "not a purl" }), { skip: "NO_PURL" });
    assert.deepEqual(packageOfComponent({ ...base, purl: "pkg:generic/x@1" }), {
      skip: "UNSUPPORTED_ECOSYSTEM",
    });
    assert.deepEqual(packageOfComponent({ ...base, purl: "pkg:npm/x" }), { skip: "NO_VERSION" });
    const versioned = packageOfComponent({ ...base, purl: "pkg:npm/x", version: "1.2.3" });
    assert.ok(!("skip" in versioned));
    assert.equal(versioned.version, "1.2.3");
  });

  test("licences become SPDX expressions", () => {
    assert.equal(licenseRefOf("Apache License, Version 2.0"), "LicenseRef-Apache-License-Version-2.0");
    assert.equal(joinLicenses(["MIT", "MIT"]), "MIT");
    assert.equal(joinLicenses(["MIT", "Apache-2.0 OR BSD-3-Clause"]), "MIT AND (Apache-2.0 OR BSD-3-Clause)");
    assert.equal(joinLicenses([]), null);
  });

  test("targets come from the file a component was found in, else the ecosystem's usual lockfile", () => {
    assert.deepEqual(targetOfLocation("/web/yarn.lock", "NPM"), {
      ecosystem: "NPM",
      packageManager: "YARN",
      manifestPath: "web/package.json",
      lockfilePath: "web/yarn.lock",
    });
    assert.deepEqual(
      targetOfLocation("/ci/app/poetry.lock", "PYPI", { root: "/ci/app", directory: null })?.manifestPath,
      "pyproject.toml",
    );
    assert.equal(targetOfLocation("/web/yarn.lock", "PYPI"), null);
    assert.equal(targetOfLocation("../outside/go.sum", "GO"), null);
    assert.deepEqual(defaultTarget("GO"), {
      ecosystem: "GO",
      packageManager: "GO_MOD",
      manifestPath: "go.mod",
      lockfilePath: "go.sum",
    });
  });
});
