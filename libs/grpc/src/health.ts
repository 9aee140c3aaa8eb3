/**
 * grpc.health.v1 with a real answer: SERVING only while the process accepts work and its
 * dependency probe (database, Redis) passes. Probe results are cached briefly so frequent
 * Kubernetes probes do not hammer the store.
 */
import type { ServerUnaryCall, ServerWritableStream, UntypedServiceImplementation, sendUnaryData } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { health } from '@storefront/proto';

const { HealthCheckResponse_ServingStatus: ServingStatus } = health;
type ServingStatus = health.HealthCheckResponse_ServingStatus;

const PROBE_CACHE_MS = 1000;
const WATCH_INTERVAL_MS = 5000;

export class HealthService {
  readonly definition = health.HealthService;
  private serving = true;
  private lastProbe = { at: 0, ok: true };

  constructor(
    private readonly serviceNames: string[],
    private readonly probe?: () => Promise<void>,
  ) {}

  stopServing(): void {
    this.serving = false;
  }

  async status(service: string): Promise<ServingStatus | undefined> {
    if (service !== '' && !this.serviceNames.includes(service)) return undefined;
    if (!this.serving) return ServingStatus.NOT_SERVING;
    return (await this.probeOk()) ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  }

  private async probeOk(): Promise<boolean> {
    if (!this.probe) return true;
    const now = Date.now();
    if (now - this.lastProbe.at < PROBE_CACHE_MS) return this.lastProbe.ok;
    const ok = await this.probe().then(
      () => true,
      () => false,
    );
    this.lastProbe = { at: now, ok };
    return ok;
  }

  readonly implementation: UntypedServiceImplementation = {
    check: (
      call: ServerUnaryCall<health.HealthCheckRequest, health.HealthCheckResponse>,
      callback: sendUnaryData<health.HealthCheckResponse>,
    ) => {
      void this.status(call.request.service).then((current) =>
        current === undefined
          ? callback({ code: status.NOT_FOUND, details: `unknown service ${call.request.service}` }, null)
          : callback(null, { status: current }),
      );
    },
    watch: (call: ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>) => {
      let last: ServingStatus | undefined;
      const send = async () => {
        const current = (await this.status(call.request.service)) ?? ServingStatus.SERVICE_UNKNOWN;
        if (current !== last) {
          last = current;
          call.write({ status: current });
        }
      };
      void send();
      const timer = setInterval(() => void send(), WATCH_INTERVAL_MS);
      call.on('cancelled', () => clearInterval(timer));
      call.on('close', () => clearInterval(timer));
    },
  };
}
