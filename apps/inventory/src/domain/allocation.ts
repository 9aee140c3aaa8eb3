/** Which batches a sale's units came from: what recalls and dispatch read. */

/** Units of an order line taken from one batch. */
export interface BatchUnits {
  number: string;
  units: number;
  /** Of those, units a refund put back on the batch. */
  returned: number;
}

export interface OrderLineAllocation {
  sku: string;
  /** Units the order bought. */
  quantity: number;
  /** First expiry first. */
  batches: BatchUnits[];
  /** Units paid for while no sellable batch had them, to be recorded at dispatch. */
  unallocated: number;
}

export interface OrderAllocation {
  orderReference: string;
  /** Stock-limited lines only; none before the order is paid. */
  lines: OrderLineAllocation[];
  /** Epoch milliseconds; undefined until checkout marks the order shipped. */
  shippedAt?: number;
}

/** Units of one batch that went to one order. */
export interface BatchOrder {
  orderReference: string;
  /** Epoch milliseconds: when the order's payment took the units. */
  soldAt: number;
  units: number;
  returned: number;
}
