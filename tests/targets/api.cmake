# Program the symbolication API tests disassemble (/asm/v1) and symbolicate end to end.
sprof_add_target(api_target SOURCES api/api_target.cpp)
