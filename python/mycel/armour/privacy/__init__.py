"""mycel.armour.privacy: differentially private training (``diff_privacy``) and privacy
evaluation (``evaluation``), as MindArmour's ``mindarmour.privacy``."""
