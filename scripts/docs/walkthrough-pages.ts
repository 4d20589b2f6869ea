/** The pages a newcomer follows, in order; scripts/docs/walkthrough.ts runs their blocks. */
export const WALKTHROUGH_PAGES = ['README.md', 'docs/partners.md', 'docs/adding-a-feed.md'] as const;
