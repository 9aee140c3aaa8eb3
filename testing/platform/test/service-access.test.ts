/**
 * Every RPC of every component, found by walking the service definitions (so a new RPC is
 * covered as soon as it exists), over both transports. Over gRPC: a caller without a valid
 * service token is refused UNAUTHENTICATED, a service its access table does not admit
 * PERMISSION_DENIED, and an admitted one gets through. In-process: the calling service is the
 * one the host built the client for, and the same table refuses or admits it the same way.
 */
import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import {
  CALLER_TOKEN_METADATA,
  CallerTokenSigner,
  STAFF_TOKEN_METADATA,
  type StaffIdentity,
} from '@storefront/caller-token';
import { CHECKOUT_ACCESS } from '@storefront/checkout';
import { AppError } from '@storefront/errors';
import {
  SERVICE_NOT_ALLOWED,
  SERVICE_UNAUTHENTICATED,
  callLocally,
  type AccessTable,
  type RpcAccess,
  type ServiceDefinition,
} from '@storefront/grpc';
import { IDENTITY_ACCESS } from '@storefront/identity';
import { INVENTORY_ACCESS } from '@storefront/inventory';
import { LOYALTY_ACCESS } from '@storefront/loyalty';
import { createLogger } from '@storefront/logging';
import { checkout, identity, inventory, loyalty } from '@storefront/proto';
import { SERVICE_NAMES, SERVICE_TOKEN_METADATA, type ServiceName } from '@storefront/service-token';
import { callRaw, refusedServiceTokens, startForSuite, testSigner } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';

type ComponentName = 'identity' | 'loyalty' | 'checkout' | 'inventory';

interface Callee {
  name: ComponentName;
  definition: ServiceDefinition;
  access: AccessTable<ServiceDefinition>;
}

const callee = <D extends ServiceDefinition>(name: ComponentName, definition: D, access: AccessTable<D>): Callee => ({
  name,
  definition,
  access: access as AccessTable<ServiceDefinition>,
});

const CALLEES: Callee[] = [
  callee('identity', identity.IdentityServiceService, IDENTITY_ACCESS),
  callee('loyalty', loyalty.LoyaltyServiceService, LOYALTY_ACCESS),
  callee('checkout', checkout.CheckoutServiceService, CHECKOUT_ACCESS),
  callee('inventory', inventory.InventoryServiceService, INVENTORY_ACCESS),
];

const FAST_ARGON2 = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' };
const logger = createLogger('test', 'silent');

/** What the callee answered, as a gRPC status and error code. */
interface Outcome {
  status: status;
  errorCode?: string;
}

const UNAUTHENTICATED_CUSTOMER: Outcome = { status: status.UNAUTHENTICATED, errorCode: 'unauthorized' };
const UNAUTHENTICATED_STAFF: Outcome = { status: status.UNAUTHENTICATED, errorCode: 'staff_unauthorized' };
const STAFF: StaffIdentity = {
  id: 'access-test-staff',
  role: 'owner',
  email: 'access-test@shop.test',
  clientAddress: '192.0.2.10',
};
/** What the test names the caller with: a customer always, a staff member where the rule asks for one. */
const withStaffNote = (rule: RpcAccess) =>
  `${rule.customer === 'required' ? ' with a customer' : ''}${rule.staff ? ' with a staff member' : ''}`;
const NOT_ALLOWED: Outcome = { status: status.PERMISSION_DENIED, errorCode: SERVICE_NOT_ALLOWED };

describe('internal RPCs: service identity and access tables', () => {
  for (const { name, definition, access } of CALLEES) {
    it(`${name} has an access rule for every RPC`, () => {
      expect(Object.keys(access).sort()).to.deep.equal(Object.keys(definition).sort());
    });
  }

  describe('over gRPC (the split layout)', () => {
    let stack: Stack;
    let callerTokens: CallerTokenSigner;
    startForSuite(
      () => startStack({ layout: 'split', env: FAST_ARGON2 }),
      (started) => (stack = started),
    );
    before(async () => {
      callerTokens = await CallerTokenSigner.fromPem(stack.keys.privateKeyPem);
    });

    for (const { name, definition, access } of CALLEES) {
      for (const [rpc, method] of Object.entries(definition)) {
        const rule = access[rpc]!;
        const call = (metadata: Record<string, string>) => callRaw(stack[name]!.address!, method, metadata);
        it(`${name}.${rpc}: refuses missing, forged, expired or misaddressed tokens, unadmitted services`, async () => {
          const unauthenticated = { status: status.UNAUTHENTICATED, errorCode: SERVICE_UNAUTHENTICATED };
          expect(await call({}), 'no service token').to.deep.equal(unauthenticated);
          for (const [label, token] of Object.entries(await refusedServiceTokens(rule.callers[0]!, name))) {
            expect(await call({ [SERVICE_TOKEN_METADATA]: token }), label).to.deep.equal(unauthenticated);
          }
          const outsiders = SERVICE_NAMES.filter((service) => !rule.callers.includes(service));
          expect(outsiders).to.not.be.empty;
          for (const outsider of outsiders) {
            expect(
              await call({ [SERVICE_TOKEN_METADATA]: await testSigner(outsider).tokenFor(name) }),
              outsider,
            ).to.deep.equal(NOT_ALLOWED);
          }
        });

        it(`${name}.${rpc}: lets ${rule.callers.join(' and ')} through${withStaffNote(rule)}`, async () => {
          const customer = { [CALLER_TOKEN_METADATA]: await callerTokens.sign('access-test-user') };
          const staff: Record<string, string> = rule.staff
            ? { [STAFF_TOKEN_METADATA]: await callerTokens.signStaff(STAFF) }
            : {};
          for (const caller of rule.callers) {
            const serviceToken = { [SERVICE_TOKEN_METADATA]: await testSigner(caller).tokenFor(name) };
            // The empty request may well be invalid; what matters is that the access check let it by.
            const admitted = await call({ ...serviceToken, ...customer, ...staff });
            expect(admitted.errorCode, caller).to.not.be.oneOf([
              SERVICE_UNAUTHENTICATED,
              SERVICE_NOT_ALLOWED,
              UNAUTHENTICATED_STAFF.errorCode,
            ]);
            if (rule.customer === 'required')
              expect(await call(serviceToken), `${caller} without a customer`).to.deep.equal(UNAUTHENTICATED_CUSTOMER);
            if (rule.staff) {
              expect(
                await call({ ...serviceToken, ...customer }),
                `${caller} with a customer but no staff member`,
              ).to.deep.equal(UNAUTHENTICATED_STAFF);
              const customerAsStaff = { [STAFF_TOKEN_METADATA]: customer[CALLER_TOKEN_METADATA] };
              expect(
                await call({ ...serviceToken, ...customerAsStaff }),
                `${caller} passing a customer's token for a staff member's`,
              ).to.deep.equal(UNAUTHENTICATED_STAFF);
              expect(
                await call({ ...serviceToken, [STAFF_TOKEN_METADATA]: 'forged' }),
                `${caller} with a forged staff token`,
              ).to.deep.equal(UNAUTHENTICATED_STAFF);
            }
          }
        });
      }
    }
  });

  describe('in-process (the one-process layout)', () => {
    let stack: Stack;
    startForSuite(
      () => startStack({ layout: 'one-process', env: FAST_ARGON2 }),
      (started) => (stack = started),
    );

    /** One call as the hosted component sees it, before the caller-side translation. */
    const callAs = async (
      name: ComponentName,
      rpc: string,
      caller: ServiceName,
      customer?: string,
      staff?: StaffIdentity,
    ): Promise<Outcome> => {
      const binding = stack[name]!.bindings!.find((candidate) => candidate.definition[rpc])!;
      const request = binding.definition[rpc]!.requestDeserialize(Buffer.alloc(0));
      try {
        await callLocally(binding, rpc, request, caller, { customer, staff, deadlineMs: 5000, logger });
        return { status: status.OK };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const kindStatus: Record<string, status> = {
          unauthenticated: status.UNAUTHENTICATED,
          permission_denied: status.PERMISSION_DENIED,
        };
        return { status: kindStatus[error.kind] ?? status.UNKNOWN, errorCode: error.code };
      }
    };

    for (const { name, definition, access } of CALLEES) {
      for (const rpc of Object.keys(definition)) {
        const rule = access[rpc]!;
        it(`${name}.${rpc}: refuses services it does not admit, customer or not`, async () => {
          const outsiders = SERVICE_NAMES.filter((service) => !rule.callers.includes(service));
          expect(outsiders).to.not.be.empty;
          for (const outsider of outsiders) {
            expect(await callAs(name, rpc, outsider, 'access-test-user', STAFF), outsider).to.deep.equal(NOT_ALLOWED);
          }
        });

        it(`${name}.${rpc}: lets ${rule.callers.join(' and ')} through${withStaffNote(rule)}`, async () => {
          for (const caller of rule.callers) {
            // The empty request may well be invalid; what matters is that the access check let it by.
            const admitted = await callAs(name, rpc, caller, 'access-test-user', rule.staff ? STAFF : undefined);
            expect(admitted.errorCode, caller).to.not.be.oneOf([SERVICE_NOT_ALLOWED, UNAUTHENTICATED_STAFF.errorCode]);
            if (rule.customer === 'required')
              expect(await callAs(name, rpc, caller), `${caller} without a customer`).to.deep.equal(
                UNAUTHENTICATED_CUSTOMER,
              );
            if (rule.staff)
              expect(
                await callAs(name, rpc, caller, 'access-test-user'),
                `${caller} with a customer but no staff member`,
              ).to.deep.equal(UNAUTHENTICATED_STAFF);
          }
        });
      }
    }
  });
});
