/** Who an operation acts for, however the request arrived (HTTP route or MCP tool). */
export interface Caller {
  /** The signed-in customer's user id, if any. */
  customer?: string;
  /** The client address, for per-address limits. */
  clientAddress: string;
}
