// Which documents write personal data into their own text (resolvers/personal-literals.ts): the
// test of what a persisted query may not hold.
import { describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import { personalLiterals } from '../../resolvers/personal-literals.js';

const ADDRESS = 'Query.utilityAccounts.address';
const of = (q: string) => personalLiterals(parse(q));

describe('personalLiterals', () => {
  it('finds a literal given to a @personalData argument, however the operation is shaped', () => {
    expect(of('{ utilityAccounts(address: "90 W Broad St", zipCode: "43215") { utilityId } }')).toEqual([ADDRESS]);
    expect(of('{ a: utilityAccounts(address: "x", zipCode: "43215") { utilityId } }')).toEqual([ADDRESS]);
    expect(of('{ ... on Query { utilityAccounts(address: "x", zipCode: "1") { utilityId } } }')).toEqual([ADDRESS]);
    expect(of('query { ...F } fragment F on Query { utilityAccounts(address: "x", zipCode: "1") { utilityId } }')).toEqual([ADDRESS]);
    expect(of('{ utilityAccounts(address: null, zipCode: "1") { utilityId } }')).toEqual([ADDRESS]);
    expect(of('query A($a: String! = "x") { utilityAccounts(address: $a, zipCode: "1") { utilityId } }')).toEqual([ADDRESS]);
  });

  it('lets variables, and literals to other arguments, through', () => {
    expect(of('query A($a: String!) { utilityAccounts(address: $a, zipCode: "43215") { utilityId } }')).toEqual([]);
    expect(of('{ utilities(zipCode: "43215") { id } }')).toEqual([]);
    // A default on a variable that reaches no personal argument is not personal data.
    expect(of('query A($z: String! = "43215", $a: String!) { utilityAccounts(address: $a, zipCode: $z) { utilityId } }')).toEqual([]);
    // Unknown fields (the document did not validate) are no concern of this walk.
    expect(of('{ nope(address: "x") { id } }')).toEqual([]);
  });
});
