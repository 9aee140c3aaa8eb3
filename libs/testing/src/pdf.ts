/**
 * Reads a PDF back as a person's reader would: its pages' text (lines in reading order) and its title. Documents
 * people keep are tested through this, never by their bytes.
 */
export interface ReadPdf {
  pages: number;
  title?: string;
  /** Each page's text, its lines joined by newlines. */
  pageTexts: string[];
  /** All pages' text. */
  text: string;
}

interface TextItem {
  str: string;
  transform: number[];
  hasEOL?: boolean;
}

export async function readPdf(bytes: Uint8Array): Promise<ReadPdf> {
  // pdfjs is an ES module; its legacy build runs on Node without a canvas.
  const pdfjs = (await import('pdfjs-dist/legacy/build/pdf.mjs')) as typeof import('pdfjs-dist');
  const document = await pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, verbosity: 0 })
    .promise;
  try {
    const pageTexts: string[] = [];
    for (let number = 1; number <= document.numPages; number += 1) {
      const content = await (await document.getPage(number)).getTextContent();
      pageTexts.push(linesOf(content.items as TextItem[]));
    }
    const { info } = (await document.getMetadata()) as { info: { Title?: string } };
    return { pages: document.numPages, title: info.Title, pageTexts, text: pageTexts.join('\n') };
  } finally {
    await document.destroy();
  }
}

/** Text items on one baseline form a line; lines run top to bottom, items left to right. */
function linesOf(items: TextItem[]): string {
  const lines = new Map<number, Array<{ x: number; text: string }>>();
  for (const item of items) {
    if (item.str === '') continue;
    const y = Math.round(item.transform[5]!);
    const line = lines.get(y) ?? [];
    line.push({ x: item.transform[4]!, text: item.str });
    lines.set(y, line);
  }
  return [...lines.entries()]
    .sort(([a], [b]) => b - a)
    .map(([, parts]) =>
      parts
        .sort((a, b) => a.x - b.x)
        .map((part) => part.text)
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .join('\n');
}
