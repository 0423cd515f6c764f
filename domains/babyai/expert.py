"""The expert of the problem sets: MiniGrid's BabyAI bot with the whole grid in view.

LLM-BabyBench's OmniBot is the BabyAI bot with its visibility mask all ones, so it never
explores, and with two changes to its path search that full view makes necessary (spec 2.4):
- a closed unlocked door blocks only the first pass of the search (the pass that avoids
  blockers); the second pass goes through it, and the bot opens it when it faces it;
- a locked door never blocks, except while the bot is looking for a key of that door's colour;
  facing one on its path, the bot pushes an Open subgoal, which fetches the key.
This module makes those changes on MiniGrid's bot (generation time only; it imports MiniGrid)
and counts every subgoal pushed (the help count, the mission's own translation included).
"""
from __future__ import annotations

from collections import deque


def make_expert(env):
    """A full-view bot for `env` (freshly reset), with a counting subgoal stack."""
    from minigrid.utils import baby_ai_bot as bb

    class CountingStack(list):
        pushes = 0

        def append(self, item):
            self.pushes += 1
            super().append(item)

    class FullViewBot(bb.BabyAIBot):
        def __init__(self, mission):
            self._key_colour = None
            super().__init__(mission)
            translated, self.stack = self.stack, CountingStack()
            for subgoal in translated:
                self.stack.append(subgoal)
            self.vis_mask[:, :] = True

        @property
        def help_count(self) -> int:
            return self.stack.pushes

        def _process_obs(self):
            pass  # everything is visible from the start

        def _find_obj_pos(self, obj_desc, adjacent=False):
            self._key_colour = obj_desc.color if obj_desc.type == "key" else None
            try:
                return super()._find_obj_pos(obj_desc, adjacent)
            finally:
                self._key_colour = None

        def _breadth_first_search(self, initial_states, accept_fn, ignore_blockers):
            grid = self.mission.unwrapped.grid
            frontier = deque((state, None) for state in initial_states)
            came_from: dict = {}
            while frontier:
                (i, j, di, dj), parent = frontier.popleft()
                if (i, j) in came_from:
                    continue
                cell = grid.get(i, j)
                came_from[(i, j)] = parent
                if accept_fn((i, j), cell):
                    path, at = [], (i, j)
                    while at:
                        path.append(at)
                        at = came_from[at]
                    return path, (i, j), came_from
                if cell is not None and not self._passable(cell, ignore_blockers):
                    continue
                # straight on first, then the sides, then back: straight paths win ties
                for step in ((di, dj), (dj, di), (-dj, -di), (-di, -dj)):
                    frontier.append(((i + step[0], j + step[1], *step), (i, j)))
            return None, None, came_from

        def _passable(self, cell, ignore_blockers: bool) -> bool:
            if cell.type == "wall":
                return False
            if cell.type == "door":
                if cell.is_locked:
                    return cell.color != self._key_colour
                return cell.is_open or ignore_blockers
            return ignore_blockers

        def replan(self, action_taken=None):
            self._check_erroneous_box_opening(action_taken)
            for subgoal in self.stack:
                subgoal.update_agent_attributes()
            if self.stack:
                self.stack[-1].replan_after_action(action_taken)
            while self.stack and self.stack[-1].is_exploratory():
                self.stack.pop()
            action = None
            while self.stack:
                subgoal = self.stack[-1]
                if isinstance(subgoal, bb.GoNextToSubgoal) and self._locked_door_ahead(subgoal):
                    self.stack.append(bb.OpenSubgoal(self))
                    continue
                action = subgoal.replan_before_action()
                if action is not None:
                    break
            if not self.stack:
                action = self.mission.unwrapped.actions.done
            self._remember_current_state()
            return action

        def _locked_door_ahead(self, subgoal) -> bool:
            """A locked door in front that the way to the subgoal's target goes through."""
            u = self.mission.unwrapped
            ahead = u.grid.get(*u.front_pos)
            if ahead is None or ahead.type != "door" or not ahead.is_locked:
                return False
            target = subgoal.datum
            if isinstance(target, bb.ObjDesc):
                _, target = self._find_obj_pos(target, subgoal.reason == "PutNext")
            elif isinstance(target, bb.WorldObj):
                target = target.cur_pos
            if target is None or tuple(target) == tuple(u.front_pos):
                return False
            path, _, _ = self._shortest_path(lambda pos, cell: pos == tuple(target), try_with_blockers=True)
            return bool(path) and tuple(path[0]) == tuple(u.front_pos)

    return FullViewBot(env)
