/**
 * The Markdown conversion's own thread: turndown (with GitHub-flavoured tables) runs here, off
 * the gateway's event loop, under the heap limit the pool gave this worker. The pool times each
 * job and terminates the worker when one runs too long (markdown-converter.ts). Built to
 * dist/markdown-worker.js next to the gateway's bundle; from the sources it runs under tsx.
 */
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./turndown-plugin-gfm.d.ts" />
import { parentPort } from 'node:worker_threads';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';

export interface ConversionJob {
  id: number;
  html: string;
}

export type WorkerMessage = { ready: true } | { id: number; markdown: string } | { id: number; error: string };

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
  .use(gfm)
  // The head's title would open the Markdown as loose text; pages carry their own heading. A picture drawn in SVG (a
  // chart, a QR code) is no text: its page says the same in words or a table beside it.
  .remove(['head', 'title', 'script', 'style', 'noscript', 'template', 'iframe', 'svg'])
  // A definition list keeps each term beside its definition, "- **Purity:** 98%", not as paragraphs apart.
  .addRule('definitionList', { filter: 'dl', replacement: (content) => `\n\n${content.trim()}\n\n` })
  .addRule('definitionTerm', { filter: 'dt', replacement: (content) => `\n- **${content.trim()}:** ` })
  .addRule('definitionDescription', { filter: 'dd', replacement: (content) => content.trim() });

const port = parentPort;
if (port) {
  port.on('message', ({ id, html }: ConversionJob) => {
    let answer: WorkerMessage;
    try {
      answer = { id, markdown: `${turndown.turndown(html).trim()}\n` };
    } catch (error) {
      answer = { id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(answer);
  });
  port.postMessage({ ready: true } satisfies WorkerMessage);
}
