/** Units held for an order until it is paid (committed) or abandoned (released, or expired). */
import type { Line } from './lines';

export type ReservationStatus = 'active' | 'committed' | 'released';

export interface ReservedLine extends Line {
  /** Whether the line took units from a stock row (false for SKUs that are not stock-limited). */
  holdsStock: boolean;
}

export interface Reservation {
  orderReference: string;
  status: ReservationStatus;
  lines: ReservedLine[];
  /** Epoch milliseconds. */
  expiresAt: number;
}
