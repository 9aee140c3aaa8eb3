import { expect } from 'chai';
import { ConfigError, EnvReader, readCommon, redactUrl } from '@storefront/config';

describe('config: EnvReader', () => {
  it('uses the default when a variable is unset or blank', () => {
    const env = new EnvReader({ PORT: '  ' });
    expect(env.int('PORT', 8080)).to.equal(8080);
    expect(env.string('DATA_DIR', './data')).to.equal('./data');
  });

  it('names the variable and the bad value in one line', () => {
    expect(() => new EnvReader({ PORT: 'eighty' }).int('PORT', 8080, { min: 0, max: 65535 })).to.throw(
      ConfigError,
      'PORT must be an integer between 0 and 65535, got "eighty"',
    );
    expect(() => new EnvReader({ PORT: '70000' }).int('PORT', 8080, { min: 0, max: 65535 })).to.throw(
      ConfigError,
      /PORT/,
    );
    expect(() => new EnvReader({ LOG_LEVEL: 'loud' }).oneOf('LOG_LEVEL', ['info', 'debug'], 'info')).to.throw(
      ConfigError,
      'LOG_LEVEL must be one of info, debug, got "loud"',
    );
    expect(() => new EnvReader({ INVENTORY_ADDR: 'nowhere' }).address('INVENTORY_ADDR', '127.0.0.1:50054')).to.throw(
      ConfigError,
      'INVENTORY_ADDR must be host:port',
    );
    // A service listens on one address; lists and dns:/// names are for its clients.
    for (const target of ['127.0.0.1:50054,127.0.0.1:50154', 'dns:///inventory:50054']) {
      expect(() => new EnvReader({ INVENTORY_ADDR: target }).address('INVENTORY_ADDR', '127.0.0.1:50054')).to.throw(
        ConfigError,
        `INVENTORY_ADDR must be host:port to listen on, got "${target}"`,
      );
    }
    expect(new EnvReader({ INVENTORY_ADDR: '0.0.0.0:50054' }).address('INVENTORY_ADDR', '127.0.0.1:50054')).to.equal(
      '0.0.0.0:50054',
    );
  });

  it('reads a gRPC client target: one backend, a dns:/// name, or a list of IP backends', () => {
    const target = (value: string) =>
      new EnvReader({ INVENTORY_ADDR: value }).grpcTarget('INVENTORY_ADDR', '127.0.0.1:50054');
    expect(new EnvReader({}).grpcTarget('INVENTORY_ADDR', '127.0.0.1:50054')).to.equal('127.0.0.1:50054');
    expect(target('inventory:50054')).to.equal('inventory:50054');
    expect(target('dns:///inventory.shop.svc.cluster.local:50054')).to.equal(
      'dns:///inventory.shop.svc.cluster.local:50054',
    );
    expect(target('127.0.0.1:50054, 127.0.0.1:50154')).to.equal('ipv4:127.0.0.1:50054,127.0.0.1:50154');
    expect(target('[::1]:50054,[::1]:50154')).to.equal('ipv6:[::1]:50054,[::1]:50154');
    expect(target('ipv4:10.0.0.1:50054,10.0.0.2:50054')).to.equal('ipv4:10.0.0.1:50054,10.0.0.2:50054');
    for (const bad of [
      'nowhere',
      'dns:///inventory',
      'inventory-a:50054,inventory-b:50054',
      '127.0.0.1:50054,[::1]:50054',
      '127.0.0.1:99999',
      '300.0.0.1:1,127.0.0.1:2',
      'ipv6:127.0.0.1:1',
    ]) {
      expect(() => target(bad), bad).to.throw(
        ConfigError,
        `INVENTORY_ADDR must be host:port, dns:///host:port or a comma list of IP host:port entries`,
      );
    }
  });

  it('requires a value that has no default', () => {
    expect(() => new EnvReader({}).string('CALLER_TOKEN_PUBLIC_KEY')).to.throw(
      ConfigError,
      'CALLER_TOKEN_PUBLIC_KEY is required but not set',
    );
  });

  it('checks URL syntax and protocol without printing passwords', () => {
    expect(new EnvReader({ MYSQL_URL: 'mysql://u:p@db:3306' }).url('MYSQL_URL', undefined, ['mysql:'])).to.equal(
      'mysql://u:p@db:3306',
    );
    expect(() =>
      new EnvReader({ MYSQL_URL: 'postgres://u:secret@db' }).url('MYSQL_URL', undefined, ['mysql:']),
    ).to.throw(ConfigError, /mysql:/);
    try {
      new EnvReader({ MYSQL_URL: 'mysql://u:secret@db:notaport' }).url('MYSQL_URL', undefined, ['mysql:']);
      expect.fail('should have thrown');
    } catch (error) {
      expect((error as Error).message).to.not.include('secret');
    }
    expect(redactUrl('mysql://root:hunter2@db:3306/x')).to.equal('mysql://root:***@db:3306/x');
  });

  it('reads comma lists and trims items', () => {
    expect(new EnvReader({ TRUSTED_PROXIES: ' 10.0.0.1, loopback ,' }).list('TRUSTED_PROXIES')).to.deep.equal([
      '10.0.0.1',
      'loopback',
    ]);
  });

  it('reads a list of origins, reducing each URL to its origin and refusing what is not http(s)', () => {
    expect(
      new EnvReader({ ALLOWED_ORIGINS: 'https://shop.example/path, http://localhost:3000' }).origins('ALLOWED_ORIGINS'),
    ).to.deep.equal(['https://shop.example', 'http://localhost:3000']);
    expect(() => new EnvReader({ ALLOWED_ORIGINS: 'shop.example' }).origins('ALLOWED_ORIGINS')).to.throw(
      ConfigError,
      'ALLOWED_ORIGINS must list http(s) URLs',
    );
    expect(() => new EnvReader({ ALLOWED_ORIGINS: 'ftp://shop.example' }).origins('ALLOWED_ORIGINS')).to.throw(
      ConfigError,
      'ALLOWED_ORIGINS',
    );
  });

  it('takes BUILD_ID from the environment before the git checkout', () => {
    expect(readCommon(new EnvReader({ BUILD_ID: 'abc123' })).buildId).to.equal('abc123');
    expect(readCommon(new EnvReader({})).buildId).to.match(/^([0-9a-f]{7,40}|dev)$/);
  });
});
