/**
 * The embedded default's demo data (SEED_DEMO_DATA): the demo catalog, with its stock-limited sizes
 * counted in batches (data/demo-batches.json) and sample certificates of analysis drawn at seed
 * time. A size's units in the catalog file are its sellable batches' units; the batches' dates are
 * days before the seed, so the demo never runs past a retest date.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseCatalogFile, skuOf, type CatalogFile } from './catalog-file';
import type { InventoryStore } from './stores/catalog';
import type { BatchStore } from './stores/batches';
import { drawSampleCertificate } from './sample-certificate';

export const DEMO_CATALOG_PATH = path.join(__dirname, '..', 'data', 'demo-catalog.json');
export const DEMO_BATCHES_PATH = path.join(__dirname, '..', 'data', 'demo-batches.json');

export interface DemoBatch {
  sku: string;
  number: string;
  units: number;
  purityHundredths: number;
  laboratory: string;
  testedDaysAgo: number;
  retestAfterDays: number;
  certificate: boolean;
  quarantined?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function readDemoData(): { catalog: CatalogFile; batches: DemoBatch[] } {
  const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
  return { catalog: parseCatalogFile(read(DEMO_CATALOG_PATH)), batches: read(DEMO_BATCHES_PATH).batches };
}

/** Seeds an empty store; says how much it seeded, how long loading pdfkit and drawing the certificates took. */
export async function seedDemoData(store: InventoryStore, batches: BatchStore, now: number) {
  const demo = readDemoData();
  const inBatches = new Set(demo.batches.map((batch) => batch.sku));
  // Sizes counted in batches start at none: receiving their batches brings them to the file's counts.
  await store.importCatalog({
    products: demo.catalog.products.map((product) => ({
      ...product,
      sizes: product.sizes.map((size) =>
        inBatches.has(skuOf(product.id, size.size)) && size.stock !== undefined ? { ...size, stock: 0 } : size,
      ),
    })),
  });
  const analyses = demoAnalyses(demo, now);
  const loading = performance.now();
  await import('pdfkit');
  const started = performance.now();
  const certificates = await drawDemoCertificates(analyses);
  const certificateMs = Math.round(performance.now() - started);
  const pdfkitLoadMs = Math.round(started - loading);
  await batches.seed(
    analyses.map(({ batch, testedOn, retestOn }, i) => {
      const { sku, number, units, purityHundredths, laboratory } = batch;
      const certificate = certificates[i];
      return {
        receipt: {
          ...{ sku, number, units, purityHundredths, laboratory, testedOn, retestOn },
          ...(certificate ? { certificate } : {}),
        },
        status: batch.quarantined ? 'quarantined' : 'sellable',
      };
    }),
  );
  return { products: demo.catalog.products.length, batches: demo.batches.length, pdfkitLoadMs, certificateMs };
}

/** Each demo batch with what its certificate states; its days counted back from `now`. */
export function demoAnalyses(demo: { catalog: CatalogFile; batches: DemoBatch[] }, now: number) {
  const day = (offsetDays: number) => new Date(now + offsetDays * DAY_MS).toISOString().slice(0, 10);
  return demo.batches.map((batch) => {
    const product = demo.catalog.products.find((entry) =>
      entry.sizes.some((size) => skuOf(entry.id, size.size) === batch.sku),
    )!;
    return {
      batch,
      number: batch.number,
      productName: product.name,
      size: product.sizes.find((size) => skuOf(product.id, size.size) === batch.sku)!.size,
      purityHundredths: batch.purityHundredths,
      testedOn: day(-batch.testedDaysAgo),
      laboratory: batch.laboratory,
      retestOn: day(batch.retestAfterDays - batch.testedDaysAgo),
    };
  });
}

/** The sample certificates of the batches that have one. */
export function drawDemoCertificates(analyses: ReturnType<typeof demoAnalyses>): Promise<Array<Buffer | undefined>> {
  return Promise.all(
    analyses.map((analysis) => (analysis.batch.certificate ? drawSampleCertificate(analysis) : undefined)),
  );
}
