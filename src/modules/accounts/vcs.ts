import type { VcsProvider } from "../../db/types.ts";

/** Public hosts of the providers that have one; self-hosted providers need a stored URL. */
const PROVIDER_BASE_URLS: Partial<Record<VcsProvider, string>> = {
  GITHUB: "https://github.com",
  GITLAB: "https://gitlab.com",
  BITBUCKET: "https://bitbucket.org",
};

/** Every provider the contract's `VCSProvider` enum names. */
export const VCS_PROVIDERS: readonly VcsProvider[] = [
  "GITHUB",
  "GITLAB",
  "BITBUCKET",
  "BITBUCKET_DATACENTER",
  "GITHUB_ENTERPRISE",
  "GSR",
  "ADS",
];

/** True when `value` is one of {@link VCS_PROVIDERS}. */
export function isVcsProvider(value: string): value is VcsProvider {
  return (VCS_PROVIDERS as readonly string[]).includes(value);
}

/** True when links to this provider can be derived without a stored URL. */
export function hasPublicHost(provider: VcsProvider): boolean {
  return PROVIDER_BASE_URLS[provider] !== undefined;
}

/** The account's page on its provider: the stored URL, or one derived from a public host. */
export function accountVcsUrl(account: {
  vcs_provider: VcsProvider;
  login: string;
  vcs_url: string | null;
}): string | null {
  if (account.vcs_url) return account.vcs_url;
  const base = PROVIDER_BASE_URLS[account.vcs_provider];
  return base ? `${base}/${encodeURIComponent(account.login)}` : null;
}

/**
 * A repository's page below its account's page. Each segment of the name is encoded on its own,
 * so a GitLab project in subgroups (`sub/project`) keeps its path.
 */
export function repositoryPageUrl(accountUrl: string, name: string): string {
  return `${accountUrl}/${name.split("/").map(encodeURIComponent).join("/")}`;
}

/** The account's avatar: the stored URL, or GitHub's avatar address for GitHub logins. */
export function accountAvatarUrl(account: {
  vcs_provider: VcsProvider;
  login: string;
  avatar_url: string | null;
}): string | null {
  if (account.avatar_url) return account.avatar_url;
  return account.vcs_provider === "GITHUB"
    ? `https://github.com/${encodeURIComponent(account.login)}.png`
    : null;
}
