// sprof/presymbolicate/stack_names.hpp
//
// Function names for one stack of a profile, for people reading a summary (the call paths of
// the memory still allocated at exit): the frames the Firefox Profiler would show, named by the
// symbolicator (which caches what it builds, so presymbolication later reuses it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/profile/profile.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::presymbolicate {

// The function names of an allocation stack's frames, leaf first, with inlined calls as frames
// of their own (innermost first). A frame that cannot be named keeps the front end's fallback
// ("<unknown at 0x...>" in a lib, the raw location outside any lib).
std::vector<std::string> allocation_stack_names(const profile::Process& process,
                                                const profile::Thread& thread, uint32_t stack,
                                                symbolicator::Symbolicator& symbolicator);

}  // namespace sprof::presymbolicate
