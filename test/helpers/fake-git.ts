import type { Git } from "../../src/cli/ci-environment.ts";

/** A git that answers from a table (`"rev-parse HEAD": "..."`), and records what it was asked. */
export function fakeGit(answers: Record<string, string | null>): Git & { asked: string[] } {
  const asked: string[] = [];
  const git = (args: string[]) => {
    asked.push(args.join(" "));
    return answers[args.join(" ")] ?? null;
  };
  return Object.assign(git, { asked });
}
