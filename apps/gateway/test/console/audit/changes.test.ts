/** The audit log's "What changed": only the fields that differ, shortened, whatever shape the records have. */
import { expect } from 'chai';
import { fieldChanges } from '../../../src/console/audit/changes';

describe('console: what a staff action changed', () => {
  it('names each field that differs, in the records’ order, and leaves out those that did not', () => {
    expect(
      fieldChanges(
        { status: 'paid', carrier: null, points: 10, lines: [1] },
        { status: 'dispatched', carrier: 'Royal Mail', points: 10, lines: [1] },
      ),
    ).to.deep.equal([
      { field: 'status', before: 'paid', after: 'dispatched' },
      { field: 'carrier', before: 'null', after: 'Royal Mail' },
    ]);
  });

  it('shows a creation by its values, a removal by what was there, and a value that is not a record as `value`', () => {
    expect(fieldChanges(undefined, { code: 'SPRING' })).to.deep.equal([{ field: 'code', after: 'SPRING' }]);
    expect(fieldChanges({ onHand: 3 }, undefined)).to.deep.equal([{ field: 'onHand', before: '3' }]);
    expect(fieldChanges({ note: 'x' }, { onHand: 2 })).to.deep.equal([
      { field: 'note', before: 'x' },
      { field: 'onHand', after: '2' },
    ]);
    expect(fieldChanges(1, 2)).to.deep.equal([{ field: 'value', before: '1', after: '2' }]);
    expect(fieldChanges(undefined, undefined)).to.deep.equal([]);
  });

  it('writes nested values as JSON and cuts long ones short', () => {
    const [nested] = fieldChanges({ address: { city: 'Leeds' } }, { address: { city: 'York' } });
    expect(nested).to.deep.equal({ field: 'address', before: '{"city":"Leeds"}', after: '{"city":"York"}' });
    const [long] = fieldChanges({}, { note: 'n'.repeat(200) });
    expect(long!.after).to.have.length(60).and.match(/…$/);
  });
});
