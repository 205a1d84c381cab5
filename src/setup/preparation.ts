// What every stage of a run's preparation works with, made once and handed to each stage in turn
// (prepare-run.ts): the target, the redactor of its secrets, the one HTTP client of the preparation's
// requests, the catalogue, the run's start and its state folder, and the run's context as the stages
// fill it in (`run`: the tokens, the ids, their notes). A stage takes what it uses from here instead of
// making its own, and writes what it learns there instead of handing a bundle of results to the next:
// one client means one record of the preparation's requests, redacted by the one redactor that learns
// each token and code as a stage mints it; a stage's signature names what it needs (`Pick<Preparation, ...>`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCatalogue, type Catalogue } from '../catalogue/catalogue';
import { ApiClient } from '../transport/api';
import { Redactor } from '../util/redact';
import { targetSecrets, type RunContext } from './run-context';
import type { Target } from './target';

/**
 * The run's context as the stages fill it in: the tokens (tokens.ts; token-proof.ts drops those it
 * cannot prove), the ids and the data window (discovery.ts, from the target file's), why a token or an
 * id is missing, the warnings and what discovery chose. The rest of the context is the flow's own
 * (prepare-run.ts: the browser, the round trip, the latency samples).
 */
export type RunInProgress = Pick<RunContext, 'tokens' | 'tokenNotes' | 'tokenOrigins' | 'publishedKeys' | 'data' | 'dataNotes' | 'window' | 'warnings'> & {
  choices: string[];
};

export interface PreparationParts {
  /** The catalogue of the run (default: contracts/). */
  catalogue?: Catalogue;
  /** When the run started (default: now), the certificate's date. */
  startedAt?: string;
}

export class Preparation {
  /** The preparation's secrets: the target file's, then every token, refresh token and code a stage mints (each stage adds its own). */
  readonly redactor: Redactor;
  /** The one client of the preparation's requests (the preflight, the reset, tokens, discovery, proofs, samples, the runner's token renewals). */
  readonly api: ApiClient;
  readonly catalogue: Catalogue;
  readonly startedAt: string;
  /**
   * The run's state folder (run-context.ts: the context handed to the workers, the kept tokens), made
   * now so that every stage and worker knows it from the start; removed when the preparation fails.
   */
  readonly stateDir: string;
  readonly run: RunInProgress;

  constructor(
    readonly target: Target,
    parts: PreparationParts = {},
  ) {
    this.redactor = new Redactor(targetSecrets(target));
    this.api = new ApiClient(target.baseUrl, target.requestTimeoutMs, this.redactor);
    this.catalogue = parts.catalogue ?? loadCatalogue();
    this.startedAt = parts.startedAt ?? new Date().toISOString();
    this.run = { tokens: {}, tokenNotes: {}, tokenOrigins: {}, data: { ...target.data }, dataNotes: {}, warnings: [], choices: [] };
    this.stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-run-'));
  }
}
