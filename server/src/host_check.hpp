// Which Host header values the server answers (DNS rebinding protection). A web page can make
// its own host name resolve to 127.0.0.1 and then talk to the server from the page's origin;
// the browser then sends that name as Host. The token in the path does not help, because it
// travels in the URL given to profiler.firefox.com. So only names that cannot be rebound are
// accepted: "localhost", loopback addresses (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104), the
// address the server listens on, and, when it listens on a wildcard address, any IP literal
// (an IP literal resolves to itself; no DNS is involved). Each may carry a ":port".
// Literals must be canonical (inet_pton): browsers normalise "127.1" or "0x7f000001" before
// sending, so such forms come only from other clients and are refused.
#pragma once

#include <string_view>

namespace sprof::server::detail {

// `bind_address` is the address the server listens on, as given to it ("127.0.0.1", "::",
// "192.168.1.5"); `host` is the Host header's value.
// `public_host` (may be empty) is the name --server-url gives the server: the user chose it, so
// it is answered too.
bool is_allowed_host(std::string_view host, std::string_view bind_address,
                     std::string_view public_host = {});

}  // namespace sprof::server::detail
