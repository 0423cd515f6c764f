"""Making a found plan cheaper: action elimination (`shorten`) and optimal search over short
windows of the plan (`windows`). Both keep a plan valid at every step and never make it costlier."""
