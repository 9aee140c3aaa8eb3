/**
 * What /mcp accepts as a message: one JSON-RPC 2.0 message per POST, never a batch; malformed
 * messages and params are refused with a JSON-RPC error that says what is wrong in words,
 * without the validator's report.
 */
import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';

interface JsonRpcError {
  jsonrpc: string;
  id: string | number | null;
  error: { code: number; message: string };
}

describe('gateway: JSON-RPC messages at /mcp', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ services: ['inventory'] });
  });
  after(async () => stack?.stop());

  async function post(body: unknown): Promise<{ status: number; text: string; json: JsonRpcError }> {
    const res = await fetch(`${stack.gateway.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as JsonRpcError };
  }

  /** No validator internals: no issue lists, no JSON inside the message, no zod or ajv words. */
  function expectPlainMessage(message: string): void {
    expect(message).not.to.match(/[[\]{}\n]|invalid_type|expected|received|zod|instancePath/i);
  }

  it('refuses a batch with 400 and an Invalid Request error, answering none of its messages', async () => {
    for (const batch of [
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ],
      [],
    ]) {
      const res = await post(batch);
      expect(res.status, res.text).to.equal(400);
      expect(res.json).to.deep.equal({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Invalid Request: batches are not accepted; send one JSON-RPC message per request',
        },
      });
    }
  });

  it('refuses a message that is not JSON-RPC 2.0 with Invalid Request naming what is wrong', async () => {
    const cases: Array<[unknown, string]> = [
      [5, 'the body must be one JSON-RPC 2.0 message, a JSON object'],
      [{ jsonrpc: '1.0', id: 1, method: 'tools/list' }, 'jsonrpc must be "2.0"'],
      [{ jsonrpc: '2.0', id: 1 }, 'method is required'],
      [{ jsonrpc: '2.0', id: 1, method: 7 }, 'method must be a non-empty string'],
      [{ jsonrpc: '2.0', id: { x: 1 }, method: 'tools/list' }, 'id must be a string or a number'],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1] }, 'params must be an object'],
    ];
    for (const [message, detail] of cases) {
      const res = await post(message);
      expect(res.status, res.text).to.equal(400);
      expect(res.json).to.deep.equal({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `Invalid Request: ${detail}` },
      });
    }
  });

  it('answers params of the wrong shape with Invalid params naming the field, not the validator report', async () => {
    const cases: Array<[unknown, string]> = [
      [
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 5 } },
        'Invalid params: params.name must be a string',
      ],
      [{ jsonrpc: '2.0', id: 4, method: 'tools/call', params: {} }, 'Invalid params: params.name is required'],
      [
        {
          jsonrpc: '2.0',
          id: 5,
          method: 'initialize',
          params: { clientInfo: { name: 'x', version: '1' }, capabilities: {} },
        },
        'Invalid params: params.protocolVersion is required',
      ],
    ];
    for (const [message, text] of cases) {
      const res = await post(message);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.include({ jsonrpc: '2.0', id: (message as { id: number }).id });
      expect(res.json.error).to.deep.equal({ code: -32602, message: text });
      expectPlainMessage(res.json.error.message);
    }
  });

  it('still answers a well-formed call', async () => {
    const res = await fetch(`${stack.gateway.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'search_products', arguments: { text: 'bpc' } },
      }),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as {
      id: number;
      result: { isError?: boolean; structuredContent: { products: unknown[] } };
    };
    expect(body.id).to.equal(9);
    expect(body.result.isError ?? false).to.equal(false);
    expect(body.result.structuredContent.products).to.be.an('array');
  });
});
