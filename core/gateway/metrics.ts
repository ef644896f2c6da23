/** Counters for `GET /metrics` in Prometheus' text format. */
export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly tokens = new Map<string, number>();
  private durationSum = 0;
  private durationCount = 0;
  active = 0;

  request(endpoint: string, status: number, seconds: number): void {
    const key = `endpoint="${endpoint}",status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    this.durationSum += seconds;
    this.durationCount++;
  }

  tokensUsed(provider: string, model: string, kind: "input" | "output" | "cache_read" | "cache_write", count: number): void {
    if (count === 0) return;
    const key = `provider="${escape(provider)}",model="${escape(model)}",type="${kind}"`;
    this.tokens.set(key, (this.tokens.get(key) ?? 0) + count);
  }

  render(): string {
    const lines = [
      "# HELP omp_gateway_requests_total Requests answered, by endpoint and HTTP status.",
      "# TYPE omp_gateway_requests_total counter",
      ...[...this.requests].map(([labels, n]) => `omp_gateway_requests_total{${labels}} ${n}`),
      "# HELP omp_gateway_tokens_total Tokens used upstream, by provider, model and kind.",
      "# TYPE omp_gateway_tokens_total counter",
      ...[...this.tokens].map(([labels, n]) => `omp_gateway_tokens_total{${labels}} ${n}`),
      "# HELP omp_gateway_request_duration_seconds Time from request to the end of its response.",
      "# TYPE omp_gateway_request_duration_seconds summary",
      `omp_gateway_request_duration_seconds_sum ${this.durationSum}`,
      `omp_gateway_request_duration_seconds_count ${this.durationCount}`,
      "# HELP omp_gateway_active_requests Requests in flight.",
      "# TYPE omp_gateway_active_requests gauge",
      `omp_gateway_active_requests ${this.active}`,
    ];
    return `${lines.join("\n")}\n`;
  }
}

function escape(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
