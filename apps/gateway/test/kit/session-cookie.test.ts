/**
 * How the gateway finds svc_sess in a Cookie header: by name, trimmed and case-sensitive, as browsers compare names.
 */
import type { Request } from 'express';
import { expect } from 'chai';
import { sessionCookieValue, sessionTokenOf } from '../../src/kit/customer-session';

const withCookie = (cookie: string | undefined) => ({ headers: { cookie } }) as Request;

describe('gateway: the session cookie in a Cookie header', () => {
  it('finds svc_sess among other cookies, whitespace around name and value trimmed', () => {
    expect(sessionTokenOf(withCookie('theme=dark; svc_sess=abc'))).to.equal('abc');
    expect(sessionTokenOf(withCookie('theme=dark;svc_sess = abc ;x=1'))).to.equal('abc');
    expect(sessionTokenOf(withCookie('\tsvc_sess\t=abc'))).to.equal('abc');
  });

  it('answers the first svc_sess when there are several', () => {
    expect(sessionTokenOf(withCookie('svc_sess=first; svc_sess=second'))).to.equal('first');
  });

  it('ignores other names, another case and pairs without =', () => {
    expect(sessionTokenOf(withCookie('SVC_SESS=abc; svc_sess2=abc; xsvc_sess=abc; svc_sess'))).to.equal(undefined);
    expect(sessionTokenOf(withCookie(undefined))).to.equal(undefined);
  });

  it('reads the name-value pair at the start of a Set-Cookie line by the same rule', () => {
    expect(sessionCookieValue(' svc_sess =forged')).to.equal('forged');
    expect(sessionCookieValue('svc_sess=')).to.equal('');
    expect(sessionCookieValue('Svc_Sess=forged')).to.equal(undefined);
  });
});
