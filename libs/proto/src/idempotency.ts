/**
 * Each RPC's `idempotency_level`, the standard protobuf method option its .proto declares, read from
 * ts-proto's generic service definitions (which carry method options; the grpc-js ones do not).
 */

/** What a repeat of the RPC does: nothing (a read), or nothing more than the first call. */
export type IdempotencyLevel = 'NO_SIDE_EFFECTS' | 'IDEMPOTENT';

interface GenericServiceDefinition {
  fullName: string;
  methods: Record<string, { name: string; options: { idempotencyLevel?: IdempotencyLevel } }>;
}

function isServiceDefinition(value: unknown): value is GenericServiceDefinition {
  const candidate = value as Partial<GenericServiceDefinition> | null;
  return typeof candidate?.fullName === 'string' && typeof candidate.methods === 'object';
}

/**
 * The declared level of every RPC of the services the generated `modules` define, by gRPC path
 * (`/package.Service/Method`); an RPC that declares none (IDEMPOTENCY_UNKNOWN) is absent.
 */
export function idempotencyLevelsOf(modules: readonly object[]): ReadonlyMap<string, IdempotencyLevel> {
  const levels = new Map<string, IdempotencyLevel>();
  for (const definition of modules.flatMap((module) => Object.values(module)).filter(isServiceDefinition)) {
    for (const method of Object.values(definition.methods)) {
      const level = method.options.idempotencyLevel;
      if (level) levels.set(`/${definition.fullName}/${method.name}`, level);
    }
  }
  return levels;
}
