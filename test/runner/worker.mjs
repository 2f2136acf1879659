// A test worker: one process that runs test files one after another for the runner (run.mjs),
// so the service's modules are loaded once per worker instead of once per file (about 1.3 s of
// the 2 s a small file took as a process of its own). Its environment (engine, adapter) is set
// by the runner at spawn; its reporter (report-to-runner.mjs) sends each result over IPC.
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { FILE_END } from './report-to-runner.mjs';

process.on('message', async (message) => {
  if (message.exit) {
    process.disconnect();
    // A file that left a handle open (a socket, a timer) must not keep the worker alive after
    // the runner is gone: it would stay behind, one more process per run.
    setTimeout(() => process.exit(0), 5000);
    return;
  }
  try {
    await import(pathToFileURL(message.run).href);
  } catch (error) {
    process.send({ type: 'load-error', error: String(error?.stack ?? error) });
  }
  // Top-level tests run one after another in the order they were declared, so this one runs once
  // every test of the file has finished, hooks included. Declared here, outside any test, it lands
  // at the top level too. The reporter tells the runner when it sees it pass: after every result
  // of the file, in the order the runner gets them.
  test(FILE_END, () => {});
});

process.send({ type: 'ready' });
