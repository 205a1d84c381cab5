// The server's answer times per route, sampled one request at a time before any check
// (src/setup/latency-sampling.ts takes them; the certificate, --compare and --history read them).

/** Counted requests per route. */
export const SAMPLES_PER_ROUTE = 5;

export interface RouteSamples {
  /** The catalogue route, e.g. "GET /cars/{carId}/status". */
  route: string;
  /** The path asked, ids filled in: two runs are compared only where they asked the same thing. */
  path?: string;
  /** Answer times in milliseconds, in the order taken. */
  samples: number[];
  /** Why the route has fewer samples than asked, or none. */
  note?: string;
}

export interface LatencySampling {
  /** How the samples were taken, in words (the certificate shows it). */
  method: string;
  routes: RouteSamples[];
}
