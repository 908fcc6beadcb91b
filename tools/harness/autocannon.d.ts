/** The part of autocannon 9's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  /** A percentile summary; latency values are whole milliseconds. */
  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p50: number
    p90: number
    p99: number
    sent?: number
  }

  /** One request template; `setupRequest` may rewrite it before each send. */
  export interface RequestSpec {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    setupRequest?: (req: RequestSpec, context: Record<string, unknown>) => RequestSpec | undefined
  }

  /** Run options. */
  export interface Options {
    url: string
    connections?: number
    duration?: number
    amount?: number
    pipelining?: number
    overallRate?: number
    sampleInt?: number
    timeout?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: RequestSpec[]
    /** Called once per connection as it is made; `setRequests` gives that connection its own request cycle. */
    setupClient?: (client: { setRequests(requests: RequestSpec[]): void }) => void
  }

  /** A finished run. */
  export interface Result {
    latency: Histogram
    requests: Histogram
    throughput: Histogram
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    '4xx': number
    '5xx': number
    statusCodeStats: Record<string, { count: number }>
    start: Date
    finish: Date
  }

  /** Runs a load test and resolves with its result. */
  function autocannon(opts: Options): Promise<Result>
  export default autocannon
}
