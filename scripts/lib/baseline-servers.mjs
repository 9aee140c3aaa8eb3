// The benchmark's yardsticks, in their own process so they do not share a core with the load
// generator: a bare node:http server and a bare Express server, both answering the JSON the
// benchmark sends first ({ json, pages }) at `/`; the bare Express server also answers each of
// `pages` ({ route: html }) at its route as an HTML page. Replies with the two ports.
import http from 'node:http';
import express from 'express';

const { json, pages = {} } = await new Promise((resolve) => process.once('message', resolve));
const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const nodeHttp = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
});
const app = express();
const parsed = JSON.parse(json);
app.get('/', (_req, res) => res.json(parsed));
for (const [route, html] of Object.entries(pages)) app.get(route, (_req, res) => res.type('html').send(html));

const ports = { http: await listen(nodeHttp), express: await listen(http.createServer(app)) };
process.send?.(ports);
