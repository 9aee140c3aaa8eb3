import { expect } from 'chai';
import { readPdf } from '@storefront/testing';
import { drawableText, renderPdf, type PdfDocumentModel } from '../src';

const MODEL: PdfDocumentModel = {
  title: 'VAT receipt SRS-R-000123',
  issuer: { name: 'Storefront Research Supplies Ltd', lines: ['1 Lab Lane, Cambridge CB1 1AA', 'VAT GB123456789'] },
  issuedAt: new Date('2026-11-30T10:00:00Z'),
  footer: 'Research use only',
  blocks: [
    {
      kind: 'facts',
      rows: [
        ['Date of supply', '30 November 2026'],
        ['Order', 'SRS-10234'],
      ],
    },
    { kind: 'heading', text: 'Lines' },
    {
      kind: 'table',
      columns: [
        { title: 'Item', width: 0.6 },
        { title: 'Qty', width: 0.15, align: 'right' },
        { title: 'Price', width: 0.25, align: 'right' },
      ],
      rows: [
        ['BPC-157 10mg', '2', '£79.98'],
        ['Zoë’s “special” Ipamorelin 5mg', '1', '£24.99'],
      ],
    },
    {
      kind: 'totals',
      rows: [
        ['Discount', '−£8.00'],
        ['Total', '£96.97'],
      ],
    },
    { kind: 'paragraph', text: 'Prices include VAT at 20 %.' },
    { kind: 'trace', points: [0, 1, 9, 1, 0, 3, 0], caption: 'HPLC trace' },
  ],
};

describe('documents: PDFs drawn from a model', () => {
  it('reads back as its title, issuer, facts, table rows and totals, in order, with the metadata title', async () => {
    const pdf = await readPdf(await renderPdf(MODEL));
    expect(pdf.pages).to.equal(1);
    expect(pdf.title).to.equal('VAT receipt SRS-R-000123');
    const lines = pdf.text.split('\n');
    const order = [
      'Storefront Research Supplies Ltd',
      'VAT GB123456789',
      'VAT receipt SRS-R-000123',
      'Date of supply: 30 November 2026',
      'Item Qty Price',
      'BPC-157 10mg 2 £79.98',
      'Zoë’s “special” Ipamorelin 5mg 1 £24.99',
      'Discount -£8.00',
      'Total £96.97',
      'Prices include VAT at 20 %.',
      'HPLC trace',
      'Research use only · Page 1 of 1',
    ];
    let at = -1;
    for (const expected of order) {
      const found = lines.findIndex((line, index) => index > at && line === expected);
      expect(found, `"${expected}" after line ${at} of:\n${pdf.text}`).to.be.greaterThan(at);
      at = found;
    }
  });

  it('gives the same bytes for the same document', async () => {
    expect((await renderPdf(MODEL)).equals(await renderPdf(MODEL))).to.equal(true);
  });

  it('breaks a long table over pages, repeating nothing, and numbers every page', async () => {
    const rows = Array.from({ length: 120 }, (_, index) => [`Line ${index + 1}`, '1', '£1.00']);
    const long = {
      ...MODEL,
      blocks: [{ ...(MODEL.blocks[2] as Extract<(typeof MODEL.blocks)[number], { kind: 'table' }>), rows }],
    };
    const pdf = await readPdf(await renderPdf(long));
    expect(pdf.pages).to.be.greaterThan(2);
    for (let index = 1; index <= 120; index += 1) expect(pdf.text).to.include(`Line ${index} 1 £1.00`);
    expect(pdf.pageTexts.at(-1)).to.include(`Page ${pdf.pages} of ${pdf.pages}`);
  });

  it('starts what follows a page break on a new page', async () => {
    const pdf = await readPdf(
      await renderPdf({
        ...MODEL,
        blocks: [
          { kind: 'heading', text: 'First order' },
          { kind: 'pageBreak' },
          { kind: 'heading', text: 'Second order' },
        ],
      }),
    );
    expect(pdf.pages).to.equal(2);
    expect(pdf.pageTexts[0]).to.include('First order').and.not.include('Second order');
    expect(pdf.pageTexts[1]).to.include('Second order').and.include('Page 2 of 2');
  });

  it('prints a watermark across a document that is not a real one', async () => {
    const pdf = await readPdf(await renderPdf({ ...MODEL, watermark: 'SAMPLE' }));
    expect(pdf.text).to.include('SAMPLE');
  });

  it('keeps to the characters the standard fonts draw', () => {
    expect(drawableText('−£8.00 × 2 – ok … €5 Zoë ✓ 漢')).to.equal('-£8.00 × 2 – ok … €5 Zoë ? ?');
  });
});
