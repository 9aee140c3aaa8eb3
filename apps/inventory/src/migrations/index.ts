import type { Migration } from '@storefront/db';
import { mailLogMigration } from '@storefront/outbox';
import { staffActionsMigration } from '@storefront/staff-audit';
import { catalog } from './001-catalog';
import { reservations } from './002-reservations';
import { stockReturns } from './004-stock-returns';
import { batches } from './005-batches';
import { vatRates } from './006-vat-rates';
import { backInStock } from './008-back-in-stock';
import { priceBreaks } from './009-price-breaks';
import { productPhotos } from './010-product-photos';
import { lowStock } from './011-low-stock';
import { productSpecifications } from './012-product-specifications';
import { stockMovements } from './014-stock-movements';

/** Applied in name order; never edit a released migration, add a new one. */
export const migrations: Record<string, Migration> = {
  '001-catalog': catalog,
  '002-reservations': reservations,
  // What the console's staff did here, written with each action (libs/staff-audit).
  '003-staff-actions': staffActionsMigration,
  '004-stock-returns': stockReturns,
  '005-batches': batches,
  '006-vat-rates': vatRates,
  '008-back-in-stock': backInStock,
  '009-price-breaks': priceBreaks,
  '010-product-photos': productPhotos,
  '011-low-stock': lowStock,
  '012-product-specifications': productSpecifications,
  '013-mail-log': mailLogMigration,
  '014-stock-movements': stockMovements,
};
