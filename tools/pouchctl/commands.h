// commands.h -- the pouchctl subcommands. Each lives in its own file under tools/pouchctl/
// and returns a process exit code (0 ok, 1 failure, 2 usage). Errors go to stderr.
#pragma once

#include <string>
#include <vector>

namespace pouchctl {

using Args = std::vector<std::string>;  // arguments after the subcommand name

// Operator commands (database from POUCH_DATABASE_URL).
int cmd_migrate(const Args& args);  // migrate [--dir sql]
int cmd_user(const Args& args);     // user role EMAIL ROLE [--reason R]
int cmd_gc(const Args& args);       // gc  (expired reservations, unreferenced blobs)
int cmd_pouch(const Args& args);    // pouch reset-epoch POUCH_ID
int cmd_blobs(const Args& args);    // blobs migrate [--from DIR] [--limit N] | url ...
int blobs_url(const Args& args);    // blobs url ACCOUNT BLOB [--expires S] (blobs_url.cpp)

// Client helpers (no server needed).
int cmd_keygen(const Args& args);             // keygen --out FILE  (prints the public JWK)
int cmd_dpop(const Args& args);               // dpop --key K --method M --url U [--token T]
int cmd_sign_body(const Args& args);          // sign-body --key K < body.json
int cmd_pkce(const Args& args);               // pkce  (prints {"verifier","challenge"})
int cmd_confirm_code(const Args& args);       // confirm-code REQUEST_ID JKT
int cmd_jwk(const Args& args);                // jwk --key K (public JWK and thumbprint)
int cmd_genesis_statement(const Args& args);  // genesis-statement --member M [--by B] ...
// The strings of docs/SHARING.md (sharing.cpp).
int cmd_identity_statement(const Args& args);  // identity-statement --account A --genesis G ...
int cmd_identity_envelope(const Args& args);   // identity-envelope --account A --member M ...
int cmd_access_statement(const Args& args);    // access-statement --pouch P --seq N ...
int cmd_key_grant(const Args& args);           // key-grant --pouch P --account A ...

}  // namespace pouchctl
