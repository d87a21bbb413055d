// Admission control's count of uploads in flight: each admitted request gives its slot back
// exactly once, including one whose client hung up before it was admitted, and no account can
// hold more than its share.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { admitUploads } from '../../../src/http/api/admission.ts';

function reply(destroyed = false): { reply: FastifyReply; close(): void } {
  const raw = Object.assign(new EventEmitter(), { destroyed });
  return { reply: { raw } as unknown as FastifyReply, close: () => raw.emit('close') };
}

describe('upload admission', () => {
  it('holds a slot until the response closes, and refuses past the limit', async () => {
    const { admission, admit } = admitUploads(2);
    const first = reply();
    const second = reply();
    await admit('acc_a', first.reply);
    await admit('acc_b', second.reply);
    assert.equal(admission.inFlight, 2);
    await assert.rejects(admit('acc_c', reply().reply), /at capacity/);
    first.close();
    first.close();
    assert.equal(admission.inFlight, 1, 'released once');
    second.close();
    assert.equal(admission.inFlight, 0);
  });

  it('does not keep the slot of a request whose connection closed before it was admitted', async () => {
    const { admission, admit } = admitUploads(2);
    const gone = reply(true);
    await admit('acc_a', gone.reply);
    assert.equal(admission.inFlight, 0);
    gone.close();
    assert.equal(admission.inFlight, 0, 'not released twice');
    assert.equal(admission.inFlightOf('acc_a'), 0);
  });

  it('caps the slots of one account, so another account always finds one', async () => {
    const { admission, admit } = admitUploads(4, 2);
    const held = [reply(), reply()];
    for (const h of held) await admit('acc_greedy', h.reply);
    await assert.rejects(admit('acc_greedy', reply().reply), /this account already has 2 uploads in progress/);
    assert.equal(admission.inFlightOf('acc_greedy'), 2);
    await admit('acc_other', reply().reply);
    assert.equal(admission.inFlight, 3);
    held[0]!.close();
    await admit('acc_greedy', reply().reply);
    assert.equal(admission.inFlightOf('acc_greedy'), 2);
  });
});
