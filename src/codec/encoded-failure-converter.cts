/* eslint-disable */
// Loaded by path (`dataConverter.failureConverterPath`): the Temporal SDK `require`s it in workers and
// clients, so it is CommonJS written in plain JavaScript (Node loads it as is; tsc emits `.cjs`).
// With a payload codec, failure messages and stack traces go into the failure's encoded attributes,
// a payload the codec encrypts, instead of plain text in history (docs/security.md).
'use strict';
const { DefaultFailureConverter } = require('@temporalio/common');

module.exports = { failureConverter: new DefaultFailureConverter({ encodeCommonAttributes: true }) };
