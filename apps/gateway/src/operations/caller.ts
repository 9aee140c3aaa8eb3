/** Who an operation acts for, however the request arrived (HTTP route or MCP tool). */
export interface Caller {
  /** The signed caller token of the signed-in customer, if any. */
  callerToken?: string;
  /** The client address, for per-address limits. */
  clientAddress: string;
}
