// sprof/core/cache_dir.hpp
//
// sprof's per-user cache directory, shared by what it keeps there: the kernel's text range per
// boot (recorder/src/kernel_image_cache.hpp) and the symbol cache (symbolicator).
#pragma once

#include <string>

namespace sprof {

// $XDG_CACHE_HOME/sprof, else ~/.cache/sprof; empty when neither variable is an absolute path.
std::string user_cache_dir();

// Makes `dir` (mode 0700) and, if it is missing, its parent (~/.cache), each only inside a
// directory of this user's: root under a sudo that kept the user's HOME must not leave
// root-owned directories in it. True when `dir` is then a directory this user owns.
bool make_own_cache_dir(const std::string& dir);

}  // namespace sprof
