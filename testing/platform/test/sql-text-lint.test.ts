/**
 * The lint that keeps values out of SQL text, as `npm run lint` runs it on a component's and a
 * lib's sources: store connections accept several statements in one packet (batched
 * transactions), so SQL built from a template or a concatenation fails, and SQL written as a
 * literal with bound values or identifiers passes. The probes are linted as text, so no such file
 * exists for the normal lint to trip over.
 */
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..', '..');

async function sqlTextErrors(project: string, statement: string): Promise<number> {
  const eslint = new ESLint({ cwd: ROOT });
  const code = `import type { Knex } from 'knex';\nexport const probe = (db: Knex, value: string) => ${statement};\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, project, 'src', 'sql-probe.ts') });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-syntax').length;
}

describe('workspace: SQL text is never built from values', function () {
  this.timeout(60_000);

  it('fails raw SQL made from a template with a value or a concatenation, in a component and in a lib', async () => {
    expect(await sqlTextErrors('apps/checkout', 'db.raw(`select ${value}`)')).to.equal(1);
    expect(await sqlTextErrors('apps/inventory', "db('stock').whereRaw('sku = ' + value)")).to.equal(1);
    expect(await sqlTextErrors('libs/db', "db('stock').orderByRaw(`case when sku = '${value}' then 0 end`)")).to.equal(
      1,
    );
  });

  it('passes SQL written as a literal with its values and identifiers bound', async () => {
    expect(await sqlTextErrors('apps/checkout', "db.raw('select ?', [value])")).to.equal(0);
    expect(await sqlTextErrors('apps/loyalty', "db.raw('null as ??', [value])")).to.equal(0);
    expect(await sqlTextErrors('apps/inventory', "db('stock').whereRaw('on_hand - reserved >= ?', [value])")).to.equal(
      0,
    );
  });
});
