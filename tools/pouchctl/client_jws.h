// client_jws.h -- ES256 JWS signing for the pouchctl client helpers: the functions of
// common/crypto/jws_sign.h (shared with the `pouch` CLI), under their historical names.
#pragma once

#include "common/crypto/jws_sign.h"
#include "tools/pouchctl/client_key.h"

namespace pouchctl {

using pouch::crypto::jws_compact;
using pouch::crypto::jws_detached;

}  // namespace pouchctl
