import { describe, expect, it } from 'vitest';
import { urlProblem } from '../../src/webhooks/guard';

describe('webhook address guard', () => {
  it.each([
    'https://hooks.example.com/in',
    'https://93.184.216.34/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://hooks.example.com:443/in?x=1',
  ])('accepts the public endpoint %s', (url) => {
    expect(urlProblem(url, false)).toBeNull();
  });

  it.each([
    ['http://hooks.example.com/in', /https/],
    ['ftp://hooks.example.com/in', /https/],
    ['not a url', /absolute URL/],
    ['https://user:pass@hooks.example.com/', /credentials/],
    ['https://hooks.example.com:8443/in', /port 443/],
    ['https://localhost/hook', /public host/],
    ['https://localhost./hook', /public host/],
    ['https://api.localhost/hook', /public host/],
    ['https://metadata.google.internal/computeMetadata/v1/', /public host/],
    ['https://printer.local/', /public host/],
    ['https://intranet/', /public host/],
    ['https://127.0.0.1/hook', /private/],
    ['https://127.1/hook', /private/],
    ['https://2130706433/hook', /private/],
    ['https://0x7f000001/hook', /private/],
    ['https://0177.0.0.1/hook', /private/],
    ['https://10.1.2.3/hook', /private/],
    ['https://172.20.0.1/hook', /private/],
    ['https://192.168.1.10/hook', /private/],
    ['https://169.254.169.254/latest/meta-data/', /private/],
    ['https://100.64.0.1/', /private/],
    ['https://0.0.0.0/', /private/],
    ['https://[::1]/hook', /private/],
    ['https://[::]/hook', /private/],
    ['https://[::ffff:127.0.0.1]/hook', /private/],
    ['https://[::ffff:a9fe:a9fe]/hook', /private/],
    ['https://[fd00::1]/hook', /private/],
    ['https://[fe80::1]/hook', /private/],
    ['https://[64:ff9b::a9fe:a9fe]/hook', /private/],
  ])('refuses %s', (url, reason) => {
    expect(urlProblem(url, false)).toMatch(reason);
  });

  it('lets WEBHOOK_ALLOW_INSECURE reach http on loopback, for development and tests only', () => {
    expect(urlProblem('http://127.0.0.1:9000/hook', true)).toBeNull();
    expect(urlProblem('ftp://127.0.0.1/hook', true)).toMatch(/https/);
  });
});
