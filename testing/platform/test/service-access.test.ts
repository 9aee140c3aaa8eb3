/**
 * Every RPC of every service, found by walking the service definitions (so a new RPC is covered
 * as soon as it exists): a caller without a valid service token is refused UNAUTHENTICATED, a
 * service its access table does not admit PERMISSION_DENIED, and an admitted one gets through.
 */
import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { CALLER_TOKEN_METADATA, CallerTokenSigner } from '@storefront/caller-token';
import { CHECKOUT_ACCESS } from '@storefront/checkout';
import { SERVICE_NOT_ALLOWED, SERVICE_UNAUTHENTICATED, type AccessTable, type ServiceDefinition } from '@storefront/grpc';
import { IDENTITY_ACCESS } from '@storefront/identity';
import { INVENTORY_ACCESS } from '@storefront/inventory';
import { LOYALTY_ACCESS } from '@storefront/loyalty';
import { checkout, identity, inventory, loyalty } from '@storefront/proto';
import { SERVICE_NAMES, SERVICE_TOKEN_METADATA, type ServiceName } from '@storefront/service-token';
import { callRaw, refusedServiceTokens, testSigner } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';

interface Callee {
  name: ServiceName;
  definition: ServiceDefinition;
  access: AccessTable<ServiceDefinition>;
  address(stack: Stack): string;
}

const callee = <D extends ServiceDefinition>(name: ServiceName, definition: D, access: AccessTable<D>, address: (stack: Stack) => string): Callee => ({
  name,
  definition,
  access: access as AccessTable<ServiceDefinition>,
  address,
});

const CALLEES: Callee[] = [
  callee('identity', identity.IdentityServiceService, IDENTITY_ACCESS, (stack) => stack.identity!.address),
  callee('loyalty', loyalty.LoyaltyServiceService, LOYALTY_ACCESS, (stack) => stack.loyalty!.address),
  callee('checkout', checkout.CheckoutServiceService, CHECKOUT_ACCESS, (stack) => stack.checkout!.address),
  callee('inventory', inventory.InventoryServiceService, INVENTORY_ACCESS, (stack) => stack.inventory!.address),
];

describe('internal RPCs: service identity and access tables', () => {
  let stack: Stack;
  let callerTokens: CallerTokenSigner;
  before(async () => {
    stack = await startStack({ env: { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' } });
    callerTokens = await CallerTokenSigner.fromPem(stack.keys.privateKeyPem);
  });
  after(async () => stack?.stop());

  for (const { name, definition, access, address } of CALLEES) {
    describe(name, () => {
      it('has an access rule for every RPC', () => {
        expect(Object.keys(access).sort()).to.deep.equal(Object.keys(definition).sort());
      });

      for (const [rpc, method] of Object.entries(definition)) {
        const rule = access[rpc]!;
        const call = (metadata: Record<string, string>) => callRaw(address(stack), method, metadata);
        it(`${rpc}: refuses a missing, forged, expired or misaddressed service token, and services it does not admit`, async () => {
          const unauthenticated = { status: status.UNAUTHENTICATED, errorCode: SERVICE_UNAUTHENTICATED };
          expect(await call({}), 'no service token').to.deep.equal(unauthenticated);
          for (const [label, token] of Object.entries(await refusedServiceTokens(rule.callers[0]!, name))) {
            expect(await call({ [SERVICE_TOKEN_METADATA]: token }), label).to.deep.equal(unauthenticated);
          }
          const outsiders = SERVICE_NAMES.filter((service) => !rule.callers.includes(service));
          expect(outsiders).to.not.be.empty;
          for (const outsider of outsiders) {
            const outcome = await call({ [SERVICE_TOKEN_METADATA]: await testSigner(outsider).tokenFor(name) });
            expect(outcome, outsider).to.deep.equal({ status: status.PERMISSION_DENIED, errorCode: SERVICE_NOT_ALLOWED });
          }
        });

        it(`${rpc}: lets ${rule.callers.join(' and ')} through${rule.customer === 'required' ? ' with a customer' : ''}`, async () => {
          const customer = { [CALLER_TOKEN_METADATA]: await callerTokens.sign('access-test-user') };
          for (const caller of rule.callers) {
            const serviceToken = { [SERVICE_TOKEN_METADATA]: await testSigner(caller).tokenFor(name) };
            // The empty request may well be invalid; what matters is that the access check let it by.
            const admitted = await call({ ...serviceToken, ...customer });
            expect(admitted.errorCode, caller).to.not.be.oneOf([SERVICE_UNAUTHENTICATED, SERVICE_NOT_ALLOWED]);
            if (rule.customer === 'required') {
              expect(await call(serviceToken), `${caller} without a customer`).to.deep.equal({ status: status.UNAUTHENTICATED, errorCode: 'unauthorized' });
            }
          }
        });
      }
    });
  }
});
