"""Strategy ratings: openskill's Plackett-Luce model, one rating per strategy, updated game
by game (tournaments rate their strategies with it)."""

from __future__ import annotations

from collections.abc import Sequence

# A strategy's skill does not drift from game to game, so no dynamics (tau = 0): every
# game then weighs about equally, instead of the last few hundred deciding the rating.
TAU = 0.0
RATING = "openskill PlackettLuce (mu 25, sigma 25/3, beta 25/6, tau 0)"
RATING_ORDER = ("Ratings: every game once, in the order deal, lineup, seat rotation; "
                "ordinal = mu - 3 sigma; sigma is the model's own uncertainty, not an interval "
                "over deals")


class Ratings:
    """Plackett-Luce ratings (openskill), one per strategy, updated game by game."""

    def __init__(self, k: int) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce(tau=TAU)
        self.ratings = [self.model.rating() for _ in range(k)]

    def update(self, strategies: Sequence[int], ranks: Sequence[int]) -> None:
        """One game: the strategy in each seat and its rank (1 = best, ties share)."""
        teams = [[self.ratings[t]] for t in strategies]
        new = self.model.rate(teams, ranks=list(ranks))
        if len(set(strategies)) == len(strategies):
            for t, team in zip(strategies, new, strict=True):
                self.ratings[t] = team[0]
            return
        # A strategy in several seats (fewer strategies than seats): its copies were rated
        # as separate players; it takes the mean of their updated mu and sigma.
        for t in set(strategies):
            copies = [team[0] for s, team in zip(strategies, new, strict=True) if s == t]
            self.ratings[t] = self.model.rating(mu=sum(r.mu for r in copies) / len(copies),
                                                sigma=sum(r.sigma for r in copies)
                                                / len(copies))

    def table(self) -> list[tuple[float, float, float]]:
        """(mu, sigma, ordinal) per strategy."""
        return [(r.mu, r.sigma, r.ordinal()) for r in self.ratings]

    def state(self) -> list[list[float]]:
        """[mu, sigma] per strategy: all an update reads (JSON keeps floats exactly)."""
        return [[r.mu, r.sigma] for r in self.ratings]

    def restore(self, state: list[list[float]]) -> None:
        self.ratings = [self.model.rating(mu=mu, sigma=sigma) for mu, sigma in state]
