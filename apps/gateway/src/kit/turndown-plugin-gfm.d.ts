// The plugin ships without type declarations; this is the part the gateway uses.
declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  /** Tables, strikethrough, task lists and highlighted code blocks. */
  export const gfm: TurndownService.Plugin;
}
