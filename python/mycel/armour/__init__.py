"""mycel.armour: trustworthy AI (MindArmour's role). ``privacy.diff_privacy`` (DP training and
its accountants), ``privacy.evaluation`` (membership inference), ``fuzz_testing`` (coverage-
guided fuzzing of models)."""
