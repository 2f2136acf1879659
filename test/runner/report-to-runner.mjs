// The workers' reporter: sends each test's outcome to the runner over IPC, with the names of the
// suites around it, and marks the end of each file (see worker.mjs).
import { Transform } from 'node:stream';
import { inspect } from 'node:util';

/** The name of the test the worker declares after each file; never counted as a test. */
export const FILE_END = '\u0000file-end';

const names = [];

/** Writes nothing itself: everything goes to the runner. */
export default new Transform({
  writableObjectMode: true,
  transform(event, _encoding, callback) {
    forward(event);
    callback();
  },
});

function forward({ type, data }) {
  if (type === 'test:start') {
    names.length = data.nesting;
    names.push(data.name);
  } else if (type === 'test:pass' || type === 'test:fail') {
    if (data.name === FILE_END) {
      process.send({ type: 'file-end' });
      return;
    }
    names.length = data.nesting + 1;
    names[data.nesting] = data.name;
    const error = data.details?.error;
    process.send({
      type: 'result',
      outcome: data.skip ? 'skip' : data.todo ? 'todo' : type === 'test:pass' ? 'pass' : 'fail',
      path: [...names],
      suite: data.details?.type === 'suite',
      ms: data.details?.duration_ms ?? 0,
      // A suite fails when a subtest does: that subtest's own failure says why.
      error: error && error.failureType !== 'subtestsFailed' ? inspect(error.cause ?? error, { depth: 6 }) : undefined,
    });
  }
}
