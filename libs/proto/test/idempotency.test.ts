/**
 * Each RPC's idempotency level is read from its .proto's `idempotency_level` option, through the generated generic
 * service definitions: a read says NO_SIDE_EFFECTS, a keyed write IDEMPOTENT, and an RPC that says nothing is absent.
 */
import { expect } from 'chai';
import { IDEMPOTENCY_LEVELS } from '@storefront/proto';
import { idempotencyLevelsOf } from '../src/idempotency';

describe('proto: idempotency levels from the contracts', () => {
  it('reads the level each RPC declares, by gRPC path', () => {
    expect(IDEMPOTENCY_LEVELS.get('/storefront.inventory.v1.InventoryService/GetStock')).to.equal('NO_SIDE_EFFECTS');
    expect(IDEMPOTENCY_LEVELS.get('/storefront.inventory.v1.InventoryService/Reserve')).to.equal('IDEMPOTENT');
    expect(IDEMPOTENCY_LEVELS.get('/storefront.checkout.v1.CheckoutService/CreateCheckout')).to.equal('IDEMPOTENT');
    expect(IDEMPOTENCY_LEVELS.get('/grpc.health.v1.Health/Check')).to.equal('NO_SIDE_EFFECTS');
  });

  it('leaves out an RPC that declares no level', () => {
    expect(IDEMPOTENCY_LEVELS.has('/storefront.identity.v1.IdentityService/SignUp')).to.equal(false);
    expect(IDEMPOTENCY_LEVELS.has('/storefront.loyalty.v1.LoyaltyService/Redeem')).to.equal(false);
  });

  it('finds the service definitions among whatever else a generated module exports', () => {
    const module = {
      PingRequest: { encode: () => undefined },
      PingServiceService: { ping: { path: '/example.v1.PingService/Ping' } },
      PingServiceDefinition: {
        name: 'PingService',
        fullName: 'example.v1.PingService',
        methods: {
          ping: { name: 'Ping', options: { idempotencyLevel: 'NO_SIDE_EFFECTS' } },
          shout: { name: 'Shout', options: {} },
        },
      },
    };
    expect([...idempotencyLevelsOf([module])]).to.deep.equal([['/example.v1.PingService/Ping', 'NO_SIDE_EFFECTS']]);
  });
});
