/**
 * What one platform process hosts: the edge (HTTP API, pages, MCP) always, and the components
 * named by COMPONENTS in-process (`all` by default, a comma list, or `none`); every other
 * component is reached over gRPC at its `<COMPONENT>_ADDR`.
 */
import { ConfigError, readCommon, type CommonConfig, type EnvReader } from '@storefront/config';
import { readCheckoutConfig, type CheckoutConfig } from '@storefront/checkout';
import { COMPONENT_NAMES, readGatewayConfig, type ComponentName, type GatewayConfig } from '@storefront/gateway';
import { readIdentityConfig, type IdentityConfig } from '@storefront/identity';
import { readInventoryConfig, type InventoryConfig } from '@storefront/inventory';
import { readLoyaltyConfig, type LoyaltyConfig } from '@storefront/loyalty';
import { readOptionalServiceTokenPrivateKey } from '@storefront/service-token';
import { readBackupSchedule, type BackupSchedule } from './backup/schedule';

export const COMPONENTS: readonly ComponentName[] = COMPONENT_NAMES;
export type Component = ComponentName;

export interface PlatformConfig extends CommonConfig {
  gateway: GatewayConfig;
  /** The configuration of each hosted component; absent ones run elsewhere. */
  hosted: {
    identity?: IdentityConfig;
    loyalty?: LoyaltyConfig;
    checkout?: CheckoutConfig;
    inventory?: InventoryConfig;
  };
  /** Signs this process's calls to components elsewhere (as the gateway, and as checkout). */
  serviceTokenPrivateKey?: string;
  /** Automatic backups of the embedded stores, when BACKUP_DIR is set. */
  backups?: BackupSchedule;
}

export function readHostedComponents(env: EnvReader): Component[] {
  const raw = env.string('COMPONENTS', 'all').trim();
  if (raw === 'all') return [...COMPONENTS];
  if (raw === 'none') return [];
  const named = raw.split(',').map((name) => name.trim());
  for (const name of named) {
    if (!(COMPONENTS as readonly string[]).includes(name))
      throw new ConfigError(
        `COMPONENTS must be all, none or a comma list of ${COMPONENTS.join(', ')}; "${name}" is none of them`,
      );
  }
  return COMPONENTS.filter((name) => named.includes(name));
}

export function readPlatformConfig(env: EnvReader): PlatformConfig {
  const hosted = new Set(readHostedComponents(env));
  return {
    ...readCommon(env),
    gateway: readGatewayConfig(env),
    hosted: {
      identity: hosted.has('identity') ? readIdentityConfig(env) : undefined,
      loyalty: hosted.has('loyalty') ? readLoyaltyConfig(env) : undefined,
      checkout: hosted.has('checkout') ? readCheckoutConfig(env) : undefined,
      inventory: hosted.has('inventory') ? readInventoryConfig(env) : undefined,
    },
    serviceTokenPrivateKey: readOptionalServiceTokenPrivateKey(env),
    backups: readBackupSchedule(env),
  };
}
