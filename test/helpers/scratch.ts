/**
 * Throwaway environments for tests: a free port, and removal of a scratch database (`pl_<name>`) with every Redis key
 * under the prefix `<name>:`. The tools' harness owns both (tools/harness/free-port.ts, tools/harness/drop-scratch.ts).
 */
export { dropScratch } from '../../tools/harness/drop-scratch.js'
export { freePort } from '../../tools/harness/free-port.js'
