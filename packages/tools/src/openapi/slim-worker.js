'use strict';
/**
 * The discovery worker: parses one OpenAPI document's text and slims it
 * (`slim.js`) off the main thread, where a 13 MB JSON.parse alone would stall
 * the event loop for about 100 ms. Plain JavaScript, like `slim.js`.
 *
 * workerData: {bytes: Uint8Array (transferred), batch: number}
 * Messages out: {head: {version, basePath, count}} once, then {ops: string}
 *   (a JSON array of at most `batch` slim operations) until all are sent, then
 *   {done: true}; or {error: string, json: boolean, start?: string}
 *   (json false: the text is not JSON; `start` is its first 1000 characters).
 * Operations leave as JSON text in small batches so the main thread parses each
 * in a short step instead of deserializing one large structured clone.
 */
const { parentPort, workerData } = require('node:worker_threads');
const { slimDocument } = require('./slim.js');

let doc;
const text = new TextDecoder().decode(workerData.bytes);
try {
  doc = JSON.parse(text);
} catch (err) {
  parentPort.postMessage({ error: err.message, json: false, start: text.slice(0, 1000) });
  doc = undefined;
}
if (doc !== undefined) {
  const slim = slimDocument(doc);
  // Drop the parsed document so it can be collected while the batches are posted.
  // eslint-disable-next-line no-useless-assignment
  doc = undefined;
  if (slim.error !== undefined) parentPort.postMessage({ error: slim.error, json: true });
  else {
    const ops = slim.operations;
    parentPort.postMessage({ head: { version: slim.version, basePath: slim.basePath, count: ops.length } });
    for (let i = 0; i < ops.length; i += workerData.batch) parentPort.postMessage({ ops: JSON.stringify(ops.slice(i, i + workerData.batch)) });
    parentPort.postMessage({ done: true });
  }
}
