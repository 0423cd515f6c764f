; IPC 1998 gripper prob04 (10 balls), typed. Twin of problems/gripper/prob04.json.
(define (problem gripper-prob04)
  (:domain gripper)
  (:objects rooma roomb - room
            ball1 ball2 ball3 ball4 ball5 ball6 ball7 ball8 ball9 ball10 - ball
            left right - gripper)
  (:init (at-robby rooma)
         (free left) (free right)
         (at ball1 rooma) (at ball2 rooma) (at ball3 rooma) (at ball4 rooma)
         (at ball5 rooma) (at ball6 rooma) (at ball7 rooma) (at ball8 rooma)
         (at ball9 rooma) (at ball10 rooma))
  (:goal (and (at ball1 roomb) (at ball2 roomb) (at ball3 roomb) (at ball4 roomb) (at ball5 roomb) (at ball6 roomb) (at ball7 roomb) (at ball8 roomb) (at ball9 roomb) (at ball10 roomb))))
