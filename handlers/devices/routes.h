// routes.h -- the devices group (decisions §6): list, rename (op 14), revoke (op 11),
// the acknowledged-seq cursor (op 9).
#pragma once

#include "common/http/server.h"

namespace pouch::devices {

Response list(Request& req, Services& s);    // GET   /v1/devices
Response rename(Request& req, Services& s);  // PATCH /v1/devices/{id}
Response revoke(Request& req, Services& s);  // POST  /v1/devices/{id}/revoke
Response cursor(Request& req, Services& s);  // PUT   /v1/devices/me/cursor

}  // namespace pouch::devices
