/** Units of one SKU on one order line. */
export const LINE_QUANTITY_MAX = 99;
