// users.cpp -- GET /v1/admin/users?email= (decisions §7): finds the one user with that e-mail,
// so an administrator can change the role of a person they know by address. Exact match after
// the normalisation signup applies (surrounding spaces dropped, ASCII lower-cased); no prefix
// search and no listing, and no audit record (a read, like every GET of this group).
#include <algorithm>
#include <cctype>
#include <string>

#include "common/http/error.h"
#include "handlers/admin/routes.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

namespace {

std::string lookup_form(const std::string& raw) {
    auto not_space = [](unsigned char c) { return !std::isspace(c); };
    auto first = std::find_if(raw.begin(), raw.end(), not_space);
    auto last = std::find_if(raw.rbegin(), raw.rend(), not_space).base();
    std::string email = first < last ? std::string(first, last) : std::string();
    std::transform(email.begin(), email.end(), email.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return email;
}

}  // namespace

AdminUser find_user(api::Call& call) {
    std::string email = lookup_form(call.query.text("email").value_or(""));
    if (email.empty()) throw validation_failed("?email", "must not be empty");
    auto conn = call.services.db.acquire();
    auto user = conn->maybe_one(sql::kUserByEmail, {.email = email});
    if (!user) throw http::not_found();
    return std::move(*user);
}

}  // namespace pouch::admin
