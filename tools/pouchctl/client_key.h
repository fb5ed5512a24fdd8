// client_key.h -- the CLI sign key of the pouchctl client helpers: the client-side P-256
// private key of common/crypto/p256_private.h (shared with the `pouch` CLI), under its
// historical name.
#pragma once

#include "common/crypto/p256_private.h"

namespace pouchctl {

using SignKey = pouch::crypto::P256PrivateKey;

}  // namespace pouchctl
