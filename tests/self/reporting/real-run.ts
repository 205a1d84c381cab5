// For the tests that run the real suite: the embedded reference started here (so it outlives a run
// and its /_control API can be asked afterwards) and a target file pointing at it
// (scripts/reference-process.ts). The suite itself runs through support/child-run.ts, as a user would run it.
export { startReference } from '../../../scripts/reference-process';
export { newReportsDir, readJson, ROOT, runCommand } from '../support/child-run';
