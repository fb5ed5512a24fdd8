// rotation.h -- the removal of a member as docs/CLIENT-FORMAT.md "Rotation" says: the signed
// `remove` statement on the roster's head (with the generation the rotation moves to), a new
// pouch key one generation up sealed to every member that stays, and the bodies of
// POST /v1/devices/{id}/revoke that carries both and of POST /v1/pouches/{id}/key-envelopes
// that stores envelopes alone. Shared by `pouch logout` and pouch-testweb's revoke.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/roster.h"

namespace pouch::clientfmt {

// The `remove` statement of `removed` (its keys and label as the roster holds them), made by
// member `by` with its signing key, at seq head + 1 after r's head, now; rotated_to = the
// generation the accompanying rotation moves the pouches to (rotated_to_of).
SignedStatement removal_statement(const Roster& r, const Member& removed, std::string_view by,
                                  std::string_view device_id, long long rotated_to,
                                  const crypto::P256PrivateKey& by_sign_key);

// rotated_to for pouches whose current generations are `current_gens`: the highest + 1, and
// at least 2 (a pouch starts at generation 1).
long long rotated_to_of(const std::vector<long long>& current_gens);

// A fresh pouch key for `pouch_id` at `key_gen`, sealed to every active member of r except
// `leaving` (a member id, or "" to leave none out), created by member `by`.
std::vector<KeyEnvelope> rotation_envelopes(std::string_view pouch_id, long long key_gen,
                                            const Roster& r, std::string_view leaving,
                                            std::string_view by,
                                            const crypto::P256PrivateKey& by_sign_key);

// {"key_envelopes":[...]}: the body of POST /v1/pouches/{id}/key-envelopes.
std::string key_envelopes_body(const std::vector<KeyEnvelope>& envelopes);

// {"roster":{"statements":[removal],"key_envelopes":[...]},"reason":reason}
std::string revoke_body(const SignedStatement& removal, const std::vector<KeyEnvelope>& envelopes,
                        std::string_view reason);

}  // namespace pouch::clientfmt
