// The benchmark's yardsticks, in their own process so they do not share a core with the load
// generator: a bare node:http server and a bare Express server, both answering BENCH_BODY as JSON.
import http from 'node:http';
import express from 'express';

const body = process.env.BENCH_BODY ?? '{}';
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const nodeHttp = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
const app = express();
const parsed = JSON.parse(body);
app.get('/', (_req, res) => res.json(parsed));

const ports = { http: await listen(nodeHttp), express: await listen(http.createServer(app)) };
process.send?.(ports);
