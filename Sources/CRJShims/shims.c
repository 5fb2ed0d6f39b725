/* The header's inline functions are the whole target; SwiftPM wants one source file. */
#include "CRJShims.h"
