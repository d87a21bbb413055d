// Admission control's count of uploads in flight: each admitted request gives its slot back
// exactly once, including one whose client hung up before it was admitted.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { admitUploads } from '../../../src/http/api/admission.ts';

function reply(destroyed = false): { reply: FastifyReply; close(): void } {
  const raw = Object.assign(new EventEmitter(), { destroyed });
  return { reply: { raw } as unknown as FastifyReply, close: () => raw.emit('close') };
}

const request = {} as FastifyRequest;

describe('upload admission', () => {
  it('holds a slot until the response closes, and refuses past the limit', async () => {
    const { admission, admit } = admitUploads(2);
    const first = reply();
    const second = reply();
    await admit(request, first.reply);
    await admit(request, second.reply);
    assert.equal(admission.inFlight, 2);
    await assert.rejects(admit(request, reply().reply), /at capacity/);
    first.close();
    first.close();
    assert.equal(admission.inFlight, 1, 'released once');
    second.close();
    assert.equal(admission.inFlight, 0);
  });

  it('does not keep the slot of a request whose connection closed before it was admitted', async () => {
    const { admission, admit } = admitUploads(2);
    const gone = reply(true);
    await admit(request, gone.reply);
    assert.equal(admission.inFlight, 0);
    gone.close();
    assert.equal(admission.inFlight, 0, 'not released twice');
  });
});
