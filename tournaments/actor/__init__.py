"""The tournament actor and the parts it owns: money requests, staff actions, prize
changes, payouts, bounties, deals, stakes, seats of a satellite, and each decision's writes."""
