import { execFileSync } from "node:child_process";

/**
 * git in `checkout`, with a fixed identity and none of the machine's configuration, answering
 * its output trimmed: what the tests that commit real histories and upload them with
 * `assay upload` run git with.
 */
export function gitIn(checkout: () => string): (...args: string[]) => string {
  return (...args) =>
    execFileSync("git", ["-c", "user.name=Assay Test", "-c", "user.email=test@example.com", ...args], {
      cwd: checkout(),
      encoding: "utf8",
      env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    }).trim();
}
